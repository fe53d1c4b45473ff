import { isFinalStatus } from "./status-codec.js";
import type { PaymentStatus } from "./store.js";

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
/** A page that stops reading (a frozen tab behind a slow proxy) is dropped past this many queued chunks. */
const MAX_QUEUED_CHUNKS = 64;

/**
 * The event id of a status: `<status>.<updatedAt>`. A page that resumes with this as `Last-Event-ID`
 * is not sent the same status again, and the `updatedAt` in it orders what it saw.
 */
export function eventIdOf(status: PaymentStatus): string {
  return `${status.status}.${status.updatedAt}`.replace(/[\r\n]/g, "");
}

/** The `updatedAt` (epoch ms) inside an event id, or -Infinity when it has none. */
function updatedAtOfEventId(eventId: string | null): number {
  const dot = eventId?.indexOf(".") ?? -1;
  const ms = dot < 0 ? Number.NaN : Date.parse((eventId as string).slice(dot + 1));
  return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY;
}

/** How one stream is set up. */
export interface StatusStreamInit {
  /** The `retry:` the stream starts with: how long EventSource waits before reconnecting, in ms. */
  retryMs: number;
  /** The `Last-Event-ID` the page resumed with, if any. */
  lastEventId: string | null;
  /** Called once, when the stream ends for any reason (final status, disconnect, close). */
  onClose: (stream: StatusStream) => void;
}

/**
 * One shopper's server-sent-events stream of one payin: sends each newer status once as
 * `id:`/`data:`, a comment when asked (keep-alive), and ends after a final status. It holds no timer
 * of its own: the instance's keep-alive and polls are shared by every stream.
 */
export class StatusStream {
  /** The payin this stream reports. */
  readonly payinId: string;
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #lastEventId: string | null;
  #lastMs: number;
  #closed = false;
  readonly #onClose: (stream: StatusStream) => void;

  constructor(payinId: string, init: StatusStreamInit) {
    this.payinId = payinId;
    this.#lastEventId = init.lastEventId;
    this.#lastMs = updatedAtOfEventId(init.lastEventId);
    this.#onClose = init.onClose;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        controller.enqueue(encoder.encode(`retry: ${init.retryMs}\n\n`));
      },
      // The page went away (its reader was cancelled): free the slot and the subscription.
      cancel: () => this.#end(false),
    });
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends `status` unless the page has it or something newer; ends the stream after a final one. */
  offer(status: PaymentStatus): void {
    if (this.#closed) return;
    const eventId = eventIdOf(status);
    const final = isFinalStatus(status.status);
    if (eventId === this.#lastEventId) {
      // Resumed at the final status: the page has it, there is nothing left to say.
      if (final) this.close();
      return;
    }
    const ms = Date.parse(status.updatedAt);
    // An older status is news to no one; a final one always is: a page that claims to have seen a
    // later moment (a Last-Event-ID from the future) still gets it, and its stream still ends.
    if (ms < this.#lastMs && !final) return;
    this.#send(`id: ${eventId}\ndata: ${JSON.stringify(status)}\n\n`);
    this.#lastEventId = eventId;
    this.#lastMs = ms;
    if (final) this.close();
  }

  /** Writes the keep-alive comment (proxies close connections that stay silent). */
  keepAlive(): void {
    if (!this.#closed) this.#write(KEEP_ALIVE);
  }

  /** Ends the stream from the server's side. */
  close(): void {
    this.#end(true);
  }

  #send(text: string): void {
    this.#write(encoder.encode(text));
  }

  #write(chunk: Uint8Array): void {
    if ((this.#controller.desiredSize ?? 0) < -MAX_QUEUED_CHUNKS) {
      // Erroring drops the queue at once; a plain close would wait for a reader that never comes.
      this.#controller.error(new Error("the page stopped reading its payment status stream"));
      this.#end(false);
      return;
    }
    this.#controller.enqueue(chunk);
  }

  #end(closeBody: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    if (closeBody) {
      try {
        this.#controller.close();
      } catch {
        // Already cancelled by the reader: nothing to close.
      }
    }
    this.#onClose(this);
  }
}
