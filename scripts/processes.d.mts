import type { ChildProcess, spawn } from "node:child_process";

/**
 * Spawns `command` as the leader of a new process group that is killed when this process ends; the
 * same arguments and result as `child_process.spawn` (`detached` is always true).
 */
export const spawnGroup: typeof spawn;
/** Registers a child another library spawned with `detached: true`, killed with this process. */
export function adoptGroup<T extends ChildProcess>(child: T): T;
/** Sends `signal` (default SIGKILL) to every process of `child`'s group; false when none was left. */
export function killGroup(child: ChildProcess, signal?: NodeJS.Signals): boolean;
/** Stops `child`'s group: `signal` to the leader, SIGKILL to the group after `graceMs`. */
export function stopGroup(
  child: ChildProcess,
  options?: { signal?: NodeJS.Signals; graceMs?: number },
): Promise<void>;
/** SIGKILLs every group this process started and has not seen end; answers how many were signalled. */
export function killAllGroups(): number;
/** The process groups started here and still running (their leaders' pids). */
export function runningGroups(): number[];
/** A temporary directory removed when this process ends, however it ends. */
export function removeOnExit(dir: string): string;
/** Removes a directory given to `removeOnExit` now. */
export function removeDir(dir: string): void;
/** How a {@link runGroup} run ended, with its whole output. */
export interface GroupRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Killed at `timeoutMs`. */
  timedOut: boolean;
}
/** Runs `command` to its end in a process group of its own; past `timeoutMs` the group is killed. */
export function runGroup(
  command: string,
  args?: readonly string[],
  options?: { timeoutMs?: number; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<GroupRun>;
