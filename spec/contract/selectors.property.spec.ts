/**
 * Contract property: for any label selector built from the full operator set, the server lists exactly the objects
 * a direct evaluation of that selector picks. The model evaluates a selector AST, independent of any parser.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { contractTargets, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const KEYS = ['app', 'tier', 'zone'] as const;
  const VALUES = ['a', 'b', 'c'] as const;

  type Requirement =
    | { readonly op: '=' | '!='; readonly key: string; readonly value: string }
    | { readonly op: 'in' | 'notin'; readonly key: string; readonly values: readonly string[] }
    | { readonly op: 'exists' | '!exists'; readonly key: string };

  const requirement: fc.Arbitrary<Requirement> = fc.oneof(
    fc.record({
      op: fc.constantFrom('=' as const, '!=' as const),
      key: fc.constantFrom(...KEYS),
      value: fc.constantFrom(...VALUES),
    }),
    fc.record({
      op: fc.constantFrom('in' as const, 'notin' as const),
      key: fc.constantFrom(...KEYS),
      values: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ op: fc.constantFrom('exists' as const, '!exists' as const), key: fc.constantFrom(...KEYS) }),
  );

  function render(r: Requirement): string {
    switch (r.op) {
      case '=':
      case '!=':
        return `${r.key}${r.op}${r.value}`;
      case 'in':
      case 'notin':
        return `${r.key} ${r.op} (${r.values.join(',')})`;
      case 'exists':
        return r.key;
      case '!exists':
        return `!${r.key}`;
    }
  }

  /** Kubernetes semantics: `!=` and `notin` also match objects without the key. */
  function matches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
    const value = labels[r.key];
    switch (r.op) {
      case '=':
        return value === r.value;
      case '!=':
        return value !== r.value;
      case 'in':
        return value !== undefined && r.values.includes(value);
      case 'notin':
        return value === undefined || !r.values.includes(value);
      case 'exists':
        return value !== undefined;
      case '!exists':
        return value === undefined;
    }
  }

  /** Every combination of absent/a/b for the three keys: 27 objects, so every requirement splits the set. */
  function fixtures(): Array<{ name: string; labels: Record<string, string> }> {
    const choices = [undefined, 'a', 'b'] as const;
    const out: Array<{ name: string; labels: Record<string, string> }> = [];
    for (const app of choices)
      for (const tier of choices)
        for (const zone of choices) {
          const labels: Record<string, string> = {};
          if (app) labels['app'] = app;
          if (tier) labels['tier'] = tier;
          if (zone) labels['zone'] = zone;
          out.push({ name: `o-${app ?? 'x'}-${tier ?? 'x'}-${zone ?? 'x'}`, labels });
        }
    return out;
  }

  describe(`contract (${target.name}): label selector property`, () => {
    const session = useContractSession(target, 'contract-selprop');
    const objects = fixtures();

    before(async function () {
      this.timeout(60_000);
      const { raw, namespace } = session();
      await Promise.all(
        objects.map(async ({ name, labels }) => {
          const made = await raw('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
            body: { metadata: { name, labels } },
          });
          expect(made.status, made.text).to.equal(201);
        }),
      );
    });

    it('lists exactly the objects that a conjunction of label requirements selects', async () => {
      const { raw, namespace } = session();
      await fc.assert(
        fc.asyncProperty(fc.array(requirement, { minLength: 1, maxLength: 3 }), async (requirements) => {
          const selector = requirements.map(render).join(',');
          const answer = await raw(
            'GET',
            `/api/v1/namespaces/${namespace}/configmaps?labelSelector=${encodeURIComponent(selector)}`,
          );
          expect(answer.status, `${selector}: ${answer.text}`).to.equal(200);
          const listed = (answer.json.items as any[]).map((item) => item.metadata.name as string).sort();
          const expected = objects
            .filter((o) => requirements.every((r) => matches(r, o.labels)))
            .map((o) => o.name)
            .sort();
          expect(listed, selector).to.deep.equal(expected);
        }),
        { numRuns: 40 },
      );
    });
  });
}
