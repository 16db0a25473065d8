import { expect } from 'chai';
import { managerFlagOptions } from './manager-cli.js';

describe("the examples' manager flags (managerFlagOptions)", () => {
  it("serves on 127.0.0.1:8080 and :8081 and campaigns in the example's namespace when no flag is given", () => {
    expect(managerFlagOptions({}, 'default')).to.deep.equal({
      metrics: { host: '127.0.0.1', port: 8080 },
      health: { host: '127.0.0.1', port: 8081 },
      leaderElection: { namespace: 'default' },
    });
  });

  it('reads bind addresses as controller-runtime does: host:port, :port for every interface, [v6]:port, and 0 for no server', () => {
    const options = managerFlagOptions(
      { 'metrics-bind-address': ':9090', 'health-probe-bind-address': '[::1]:0' },
      'default',
    );
    expect(options.metrics).to.deep.equal({ port: 9090 });
    expect(options.health).to.deep.equal({ host: '::1', port: 0 });
    expect(managerFlagOptions({ 'metrics-bind-address': '0', 'health-probe-bind-address': '0' }, 'default')).to.include(
      { metrics: false, health: false },
    );
  });

  it('passes the Lease namespace, identity, timings and shutdown timeout through, and turns election off on --no-leader-elect', () => {
    const options = managerFlagOptions(
      {
        'leader-elect-resource-namespace': 'ops',
        identity: 'replica-a',
        'lease-duration': '4000',
        'renew-deadline': '3000',
        'retry-period': '500',
        'shutdown-timeout': '0',
      },
      'default',
    );
    expect(options.leaderElection).to.deep.equal({
      namespace: 'ops',
      identity: 'replica-a',
      leaseDuration: 4000,
      renewDeadline: 3000,
      retryPeriod: 500,
    });
    expect(options.shutdownTimeout).to.equal(0);
    expect(managerFlagOptions({ 'leader-elect': false }, 'default').leaderElection).to.equal(false);
  });

  it("gives the informers --min-watch-timeout in ms, or 'server' to let kube-apiserver end each watch", () => {
    expect(managerFlagOptions({ 'min-watch-timeout': '20000' }, 'default').informers).to.deep.equal({
      minWatchTimeout: 20_000,
    });
    expect(managerFlagOptions({ 'min-watch-timeout': 'server' }, 'default').informers).to.deep.equal({
      minWatchTimeout: 'server',
    });
    expect(managerFlagOptions({}, 'default')).to.not.have.property('informers');
  });

  it('runs sharded on --shard-ranges, without leader election, its Leases where the Lease would be, same identity and timings', () => {
    const options = managerFlagOptions(
      { 'shard-ranges': '16', 'shard-hash': 'namespace', identity: 'replica-a', 'lease-duration': '4000' },
      'default',
    );
    expect(options.leaderElection).to.equal(false);
    expect(options.sharding).to.deep.equal({
      namespace: 'default',
      ranges: 16,
      hash: 'namespace',
      identity: 'replica-a',
      leaseDuration: 4000,
    });
    expect(managerFlagOptions({}, 'default')).to.not.have.property('sharding');
  });

  const refused: ReadonlyArray<readonly [string, Parameters<typeof managerFlagOptions>[0], string]> = [
    [
      'a bind address without a port',
      { 'metrics-bind-address': 'localhost' },
      '--metrics-bind-address must be host:port, :port or 0, got "localhost"',
    ],
    [
      'an empty bind address',
      { 'health-probe-bind-address': '' },
      '--health-probe-bind-address must be host:port, :port or 0, got ""',
    ],
    [
      'a duration that is not a number',
      { 'retry-period': '2s' },
      '--retry-period must be a number of milliseconds, got "2s"',
    ],
    ['an empty duration', { 'lease-duration': ' ' }, '--lease-duration must be a number of milliseconds, got " "'],
    ['a range count that is not a whole number', { 'shard-ranges': '2.5' }, '--shard-ranges must be a whole number'],
    [
      'a hash the server cannot shard by',
      { 'shard-ranges': '8', 'shard-hash': 'name' },
      '--shard-hash must be uid or namespace',
    ],
    ['--shard-hash alone', { 'shard-hash': 'uid' }, '--shard-hash needs --shard-ranges'],
    [
      'a negative duration',
      { 'shutdown-timeout': '-1' },
      '--shutdown-timeout must be a number of milliseconds, got "-1"',
    ],
    [
      'a watch timeout under a second',
      { 'min-watch-timeout': '500' },
      '--min-watch-timeout must be at least 1000 ms or server, got "500"',
    ],
  ];
  for (const [what, values, message] of refused) {
    it(`refuses ${what}, naming the flag`, () => {
      expect(() => managerFlagOptions(values, 'default')).to.throw(TypeError, message);
    });
  }
});
