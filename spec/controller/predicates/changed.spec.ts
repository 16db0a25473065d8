import { expect } from 'chai';
import {
  annotationsChanged,
  eventType,
  generationChanged,
  labelsChanged,
  resourceVersionChanged,
} from '../../../src/controller/predicates/index.js';
import { added, deleted, obj, resync, updated } from './fixtures.js';

const base = obj('a', { generation: 1, resourceVersion: '10', labels: { app: 'web' }, annotations: { note: 'x' } });
const nonUpdates = [added(base), deleted(base), deleted(base, true), resync(base)];

describe('generationChanged', () => {
  it('passes an update whose generation changed', () => {
    expect(generationChanged().test(updated(base, obj('a', { generation: 2 })))).to.equal(true);
  });

  it('drops an update that only changed status and resourceVersion', () => {
    expect(generationChanged().test(updated(base, obj('a', { generation: 1, resourceVersion: '11' })))).to.equal(false);
  });

  it('passes added, deleted, tombstone and resync events untouched', () => {
    for (const event of nonUpdates) expect(generationChanged().test(event), event.type).to.equal(true);
  });

  it('passes an update that is missing its old object rather than guessing', () => {
    const broken = { ...updated(base, base), old: undefined } as never;
    expect(generationChanged().test(broken)).to.equal(true);
  });
});

describe('resourceVersionChanged', () => {
  it('passes an update that carries a new resourceVersion', () => {
    expect(resourceVersionChanged().test(updated(base, obj('a', { resourceVersion: '11' })))).to.equal(true);
  });

  it('drops an update that carries the same resourceVersion', () => {
    expect(resourceVersionChanged().test(updated(base, obj('a', { resourceVersion: '10' })))).to.equal(false);
  });

  it('passes every non-update event, resync included', () => {
    for (const event of nonUpdates) expect(resourceVersionChanged().test(event), event.type).to.equal(true);
  });
});

describe('labelsChanged', () => {
  it('passes an update that changed a label value', () => {
    expect(labelsChanged().test(updated(base, obj('a', { labels: { app: 'db' } })))).to.equal(true);
  });

  it('passes an update that removed a label', () => {
    expect(labelsChanged().test(updated(base, obj('a', { labels: {} })))).to.equal(true);
  });

  it('passes an update that added a label with the same count of keys swapped', () => {
    expect(labelsChanged().test(updated(base, obj('a', { labels: { tier: 'web' } })))).to.equal(true);
  });

  it('drops an update whose labels are equal in another key order', () => {
    const before = obj('a', { labels: { a: '1', b: '2' } });
    const after = obj('a', { labels: { b: '2', a: '1' }, generation: 5 });
    expect(labelsChanged().test(updated(before, after))).to.equal(false);
  });

  it('treats missing labels and empty labels as the same', () => {
    expect(labelsChanged().test(updated(obj('a', { labels: undefined }), obj('a', { labels: {} })))).to.equal(false);
  });

  it('passes every non-update event', () => {
    for (const event of nonUpdates) expect(labelsChanged().test(event), event.type).to.equal(true);
  });
});

describe('annotationsChanged', () => {
  it('passes an update that changed an annotation', () => {
    expect(annotationsChanged().test(updated(base, obj('a', { annotations: { note: 'y' } })))).to.equal(true);
  });

  it('drops an update that changed labels but not annotations', () => {
    const after = obj('a', { labels: { app: 'db' }, annotations: { note: 'x' } });
    expect(annotationsChanged().test(updated(base, after))).to.equal(false);
  });

  it('passes every non-update event', () => {
    for (const event of nonUpdates) expect(annotationsChanged().test(event), event.type).to.equal(true);
  });
});

describe('eventType', () => {
  it('passes only the listed event types, tombstones counting as deleted', () => {
    const p = eventType('added', 'deleted');
    expect(nonUpdates.map((e) => p.test(e))).to.deep.equal([true, true, true, false]);
    expect(p.test(updated(base, base))).to.equal(false);
  });

  it('throws at once on a misspelt event type', () => {
    expect(() => eventType('modified' as never)).to.throw(TypeError, /unknown event type "modified"/);
  });
});
