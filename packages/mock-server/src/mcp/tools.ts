// Every tool of `paykit-mock mcp`, in the order an agent meets them: opening an account, the merchant
// API, the rest of the control API, the trigger scenarios, then the doctor.
import { apiTools } from "./api-tools.js";
import { controlTools } from "./control-tools.js";
import { doctorTool } from "./doctor-tool.js";
import { scenarioTool } from "./scenario-tool.js";
import type { McpTool } from "./tool.js";

/** The tools an agent gets. */
export function mcpTools(): McpTool[] {
  const control = controlTools();
  const opening = control.filter((tool) => tool.name === "createAccount");
  const others = control.filter((tool) => tool.name !== "createAccount");
  return [...opening, ...apiTools(), ...others, scenarioTool(), doctorTool()];
}
