/**
 * Newline splitting over raw byte chunks, linear in the bytes received.
 */
import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into `\n`-terminated lines (a trailing `\r` is dropped).
 *
 * # Guarantees
 * - Any chunking of the same bytes yields the same lines (property-tested).
 * - Multi-byte UTF-8 characters split across chunks decode correctly: each chunk is decoded once by a
 *   `StringDecoder`, which holds back an incomplete trailing sequence until the next chunk completes it.
 * - Linear cost: the pieces of a partial line are kept in a list and joined once, when its newline arrives, so a
 *   huge line arriving in many small chunks is not re-copied per chunk.
 *
 * # Caveats
 * A line longer than `maxLineChars` (UTF-16 units; default 64 Mi) throws a `RangeError` from
 * {@link LineSplitter.push}, so a server that never sends a newline cannot grow memory without bound.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(private readonly maxLineChars: number = 64 * 1024 * 1024) {}

  /** Feeds one chunk; returns the lines it completed, in order. */
  push(chunk: Uint8Array): string[] {
    return this.split(this.decoder.write(chunk));
  }

  /** Ends the stream: returns the unterminated last line, if anything is left, so nothing is lost. */
  flush(): string | undefined {
    // What the decoder still holds is an incomplete character (decoded as U+FFFD), never a newline.
    const rest = this.decoder.end();
    if (rest !== '') this.pending.push(rest);
    return this.pending.length === 0 ? undefined : this.takePending('');
  }

  private split(text: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      lines.push(this.takePending(text.slice(start, nl)));
      start = nl + 1;
    }
    if (start < text.length) {
      const rest = start === 0 ? text : text.slice(start);
      this.pendingChars += rest.length;
      if (this.pendingChars > this.maxLineChars) {
        this.pending = [];
        this.pendingChars = 0;
        throw new RangeError(`line exceeds ${this.maxLineChars} characters without a newline`);
      }
      this.pending.push(rest);
    }
    return lines;
  }

  private takePending(tail: string): string {
    let line = tail;
    if (this.pending.length > 0) {
      this.pending.push(tail);
      line = this.pending.join('');
      this.pending = [];
      this.pendingChars = 0;
    }
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }
}
