import { expect } from 'chai';
import { firstValueFrom, NEVER } from 'rxjs';
import { resourceClient } from '../../src/client/index.js';
import type { Transport, TransportRequest } from '../../src/transport/index.js';

describe('resourceClient: selectors', () => {
  it('errors a list or deleteCollection with a selector the server would refuse, naming it, before any request', async () => {
    const sent: TransportRequest[] = [];
    const transport: Transport = {
      get: () => NEVER,
      watch: () => NEVER,
      request: (request) => {
        sent.push(request);
        return NEVER;
      },
    };
    const configMaps = resourceClient(transport, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' });
    const list = configMaps.list({ labelSelector: 'app in (web' });
    const listed = await firstValueFrom(list).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(listed).to.be.instanceOf(RangeError);
    expect(listed!.message).to.equal(
      "resourceClient.list: labelSelector \"app in (web\" is invalid at character 12 (end of text): unable to parse requirement: found '', expected: ',' or ')'",
    );
    const deleted = await firstValueFrom(configMaps.deleteCollection({ fieldSelector: 'status.phase' })).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(deleted!.message).to.match(
      /^resourceClient\.deleteCollection: fieldSelector "status\.phase" is invalid at character 1/,
    );
    expect(sent).to.deep.equal([]);
  });
});
