import { expect } from 'chai';
import fc from 'fast-check';
import {
  buildEvent,
  eventNamer,
  InvalidEventError,
  microTime,
  qualifiedNameProblem,
  truncateUtf8,
} from '../../../src/client/events/build.js';
import { eventRecorder } from '../../../src/client/events/index.js';
import { EventsServer } from './events-server.js';
import { asyncScheduler } from 'rxjs';

const identity = { reportingController: 'example.com/test', reportingInstance: 'test-0' };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'apps', uid: 'u1' } };

describe('eventRecorder: building Events', () => {
  it('cuts a note over 1024 bytes at a character boundary instead of having it rejected', () => {
    const note = 'é'.repeat(600); // 1200 bytes
    const built = buildEvent(pod, { type: 'Normal', reason: 'R', action: 'A', note }, identity, 0, () => 'web.1');
    expect(Buffer.byteLength(built.body.note!)).to.equal(1024);
    expect(built.body.note).to.equal('é'.repeat(512));
    expect(built.truncated).to.equal(true);
    expect(
      buildEvent(pod, { type: 'Normal', reason: 'R', action: 'A', note: 'short' }, identity, 0, () => 'web.1')
        .truncated,
    ).to.equal(false);
  });

  it('truncateUtf8 always gives a prefix of at most the limit in bytes, and the whole text when it fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 0, max: 1100 }), (text, limit) => {
        const cut = truncateUtf8(text, limit);
        expect(Buffer.byteLength(cut)).to.be.at.most(Math.max(limit, 0));
        expect(text.startsWith(cut)).to.equal(true);
        if (Buffer.byteLength(text) <= limit) expect(cut).to.equal(text);
        // Nothing is cut that would have fit: the next code point would cross the limit.
        else expect(Buffer.byteLength(cut + String.fromCodePoint(text.codePointAt(cut.length)!))).to.be.above(limit);
      }),
    );
  });

  it('formats scheduler time as a MicroTime', () => {
    expect(microTime(0)).to.equal('1970-01-01T00:00:00.000000Z');
    expect(microTime(Date.UTC(2026, 0, 1, 12, 30, 5, 123))).to.equal('2026-01-01T12:30:05.123000Z');
    expect(microTime(1.5)).to.equal('1970-01-01T00:00:00.001500Z');
  });

  it('names Events after their object with hex nanoseconds, never twice from one namer, and falls back for long names', () => {
    const name = eventNamer(
      () => 1000,
      () => 0,
    );
    expect(name('web')).to.equal('web.3b9aca00');
    expect(name('web')).to.equal('web.3b9aca01');
    expect(name('x'.repeat(250))).to.equal('event.3b9aca02');
    expect(name('Upper_Case')).to.equal('event.3b9aca03');
  });

  it('checks reportingController as the API server does: a qualified name', () => {
    expect(qualifiedNameProblem('example.com/node-labeler')).to.equal(undefined);
    expect(qualifiedNameProblem('kubelet')).to.equal(undefined);
    expect(qualifiedNameProblem('Example.com/x')).to.match(/prefix/);
    expect(qualifiedNameProblem('a/b/c')).to.match(/at most one/);
    expect(qualifiedNameProblem('-bad')).to.match(/starting and ending/);
    expect(qualifiedNameProblem('x'.repeat(64))).to.match(/63/);
  });

  it('refers to an object by reference fields in one order, keeping uid and resourceVersion, and accepts references', () => {
    const fromObject = buildEvent(
      { ...pod, metadata: { ...pod.metadata, resourceVersion: '5' } },
      { type: 'Warning', reason: 'R', action: 'A' },
      identity,
      0,
      () => 'n',
    );
    expect(fromObject.body.regarding).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: 'apps',
      name: 'web',
      uid: 'u1',
      resourceVersion: '5',
    });
    expect(fromObject.body.metadata.namespace).to.equal('apps');
    const fromReference = buildEvent(
      { name: 'web', kind: 'Pod', uid: 'u1', namespace: 'apps', apiVersion: 'v1', resourceVersion: '5' },
      { type: 'Warning', reason: 'R', action: 'A' },
      identity,
      0,
      () => 'n',
    );
    expect(fromReference.key).to.equal(fromObject.key);
    expect(() =>
      buildEvent(
        { kind: 'Pod', name: 7 } as never,
        { type: 'Normal', reason: 'R', action: 'A' },
        identity,
        0,
        () => 'n',
      ),
    ).to.throw(InvalidEventError, 'regarding.name: must be a string, got number');
  });

  it("refuses a metadata-only view (PartialObjectMetadata) as a subject: its kind is not the object's", () => {
    const view = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'web', namespace: 'apps', uid: 'u1' },
    };
    expect(() => buildEvent(view, { type: 'Normal', reason: 'R', action: 'A' }, identity, 0, () => 'n')).to.throw(
      InvalidEventError,
      /^regarding\.kind: is PartialObjectMetadata, a metadata-only view/,
    );
  });

  it('refuses a bad configuration where the recorder is made, naming the option', () => {
    const server = new EventsServer(asyncScheduler);
    expect(() => eventRecorder(server, {} as never)).to.throw(TypeError, /reportingController is required/);
    expect(() => eventRecorder(server, { reportingController: 'Bad Name' })).to.throw(RangeError, /qualified name/);
    expect(() => eventRecorder(server, { reportingController: 'a', onWarning: 'log' as never })).to.throw(
      TypeError,
      /onWarning must be a function/,
    );
    expect(() => eventRecorder(server, { reportingController: 'a', reportingInstance: 'x'.repeat(129) })).to.throw(
      RangeError,
      /reportingInstance/,
    );
    expect(() => eventRecorder(server, { reportingController: 'a', maxPending: 0 })).to.throw(
      RangeError,
      /maxPending must be an integer >= 1, got 0/,
    );
    expect(() => eventRecorder(server, { reportingController: 'a', spamFilter: { qps: -1 } })).to.throw(
      RangeError,
      /spamFilter\.qps/,
    );
    expect(() =>
      eventRecorder(server, { reportingController: 'a', retryBackoff: { baseMs: 1, factor: 0.5, capMs: 1 } }),
    ).to.throw(RangeError, /factor/);
  });

  it('defaults reportingInstance to <controller>-<hostname>, as client-go', () => {
    const recorder = eventRecorder(new EventsServer(asyncScheduler), { reportingController: 'example.com/x' });
    expect(recorder.reportingInstance).to.match(/^example\.com\/x-.+/);
    expect(recorder.reportingInstance.length).to.be.at.most(128);
  });
});
