import { expect } from 'chai';
import fc from 'fast-check';
import { LineSplitter } from '../../src/transport/index.js';

function splitAll(chunks: Uint8Array[]): string[] {
  const splitter = new LineSplitter();
  const lines = chunks.flatMap((chunk) => splitter.push(chunk));
  const last = splitter.flush();
  return last === undefined ? lines : [...lines, last];
}

function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(start, p));
    start = p;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

describe('LineSplitter', () => {
  it('joins a line split across chunks', () => {
    expect(splitAll([Buffer.from('{"a":'), Buffer.from('1}\n{"b"'), Buffer.from(':2}\n')])).to.deep.equal([
      '{"a":1}',
      '{"b":2}',
    ]);
  });

  it('decodes a multi-byte UTF-8 character split across chunks', () => {
    const bytes = Buffer.from('ünïcødé 🚀\n', 'utf8');
    const rocket = bytes.indexOf(0xf0);
    expect(splitAll([bytes.subarray(0, rocket + 2), bytes.subarray(rocket + 2)])).to.deep.equal(['ünïcødé 🚀']);
  });

  it('drops a trailing carriage return and keeps empty lines', () => {
    expect(splitAll([Buffer.from('a\r\n\nb\n')])).to.deep.equal(['a', '', 'b']);
  });

  it('returns an unterminated last line on flush so nothing is lost', () => {
    expect(splitAll([Buffer.from('a\nb')])).to.deep.equal(['a', 'b']);
  });

  it('does not depend on the caller keeping the chunk memory', () => {
    const splitter = new LineSplitter();
    const chunk = Buffer.from('abc');
    splitter.push(chunk);
    chunk.fill(0x78);
    expect(splitter.push(Buffer.from('\n'))).to.deep.equal(['abc']);
  });

  it('throws a clear error for a line longer than the limit', () => {
    const splitter = new LineSplitter(8);
    splitter.push(Buffer.from('12345'));
    expect(() => splitter.push(Buffer.from('6789'))).to.throw(RangeError, 'line exceeds 8 characters');
  });

  it('gives the same lines for any chunking of any lines', () => {
    const lineArb = fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ''));
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
        expect(splitAll(cut(bytes, cuts))).to.deep.equal(lines);
      }),
      { numRuns: 300 },
    );
  });
});
