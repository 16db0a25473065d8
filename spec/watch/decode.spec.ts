import { expect } from 'chai';
import { decodeWatchLine } from '../../src/watch/index.js';

describe('decodeWatchLine', () => {
  it('classifies object events, bookmarks with the initial-events-end annotation, and ERROR statuses', () => {
    expect(decodeWatchLine('{"type":"DELETED","object":{"metadata":{"name":"a"}}}')).to.deep.equal({
      kind: 'object',
      type: 'DELETED',
      object: { metadata: { name: 'a' } },
    });
    expect(
      decodeWatchLine(
        '{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}}',
      ),
    ).to.deep.equal({ kind: 'bookmark', resourceVersion: '9', initialEventsEnd: true });
    expect(
      decodeWatchLine('{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}'),
    ).to.deep.include({ kind: 'error' });
  });

  it('treats whitespace-only lines as blank rather than malformed', () => {
    expect(decodeWatchLine('  \t')).to.deep.equal({ kind: 'blank' });
  });

  for (const [what, text, why] of [
    ['invalid JSON', '{"type":', 'not JSON'],
    ['a JSON value that is not an event', '[1,2]', 'not a watch event'],
    ['an event without an object', '{"type":"ADDED"}', 'not a watch event'],
    ['an unknown event type', '{"type":"RENAMED","object":{}}', 'unknown watch event type "RENAMED"'],
    [
      'a bookmark without resourceVersion',
      '{"type":"BOOKMARK","object":{"metadata":{}}}',
      'BOOKMARK without metadata.resourceVersion',
    ],
  ] as const) {
    it(`reports ${what} as malformed, saying why and quoting the line`, () => {
      const decoded = decodeWatchLine(text);
      expect(decoded.kind).to.equal('malformed');
      const message = decoded.kind === 'malformed' ? decoded.message : '';
      expect(message).to.include(why).and.to.include(JSON.stringify(text));
    });
  }
});
