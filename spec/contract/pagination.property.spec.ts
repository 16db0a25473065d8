/**
 * Contract property: for any page size, following `continue` tokens yields the full list exactly once, in order,
 * with `remainingItemCount` counting what is left after each page.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { contractTargets, corePath, expectItemsAsRead, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const COUNT = 12;

  describe(`contract (${target.name}): pagination property`, () => {
    const session = useContractSession(target, 'contract-pageprop');
    const configMaps = (): string => corePath(session(), 'configmaps');

    before(async function () {
      this.timeout(60_000);
      await Promise.all(
        Array.from({ length: COUNT }, async (_, i) => {
          const made = await session().raw('POST', configMaps(), {
            body: { metadata: { name: `item-${String(i).padStart(2, '0')}` } },
          });
          expect(made.status, made.text).to.equal(201);
        }),
      );
    });

    it('pages through the whole list once, in order, for any limit', async () => {
      const full = (await session().raw('GET', configMaps())).json;
      const names = await expectItemsAsRead(session(), full, { plural: 'configmaps' });
      expect(names).to.have.length(COUNT);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: COUNT + 2 }), async (limit) => {
          const seen: any[] = [];
          let token: string | undefined;
          let listRv: string | undefined;
          for (let page = 0; page <= COUNT; page++) {
            const query = `limit=${limit}${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`;
            const answer = (await session().raw('GET', `${configMaps()}?${query}`)).json;
            expect(answer.items.length).to.be.at.most(limit);
            seen.push(...(answer.items as any[]));
            listRv ??= answer.metadata.resourceVersion;
            expect(answer.metadata.resourceVersion).to.equal(listRv);
            token = answer.metadata.continue;
            if (token === undefined) {
              expect(answer.metadata).to.not.have.property('remainingItemCount');
              break;
            }
            expect(answer.metadata.remainingItemCount).to.equal(COUNT - seen.length);
          }
          expect(token, 'pagination did not end').to.equal(undefined);
          // Field by field: the pages' items are the full list's items (no kind, no apiVersion), in order.
          expect(seen).to.deep.equal(full.items);
        }),
        { numRuns: 15 },
      );
    });
  });
}
