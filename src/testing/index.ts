/**
 * rxkube/testing: an in-memory Kubernetes API server with fault injection (over HTTP, or in process in virtual time),
 * marble helpers, record and replay, seeded simulation, the launcher of a real kube-apiserver + etcd control plane,
 * and the PKI helpers both use.
 *
 * It exports no name of `rxkube` or `rxkube/extend`: where its signatures name one of their types (a `Transport`,
 * a `ControllerDefinition`), its declarations import it from there, as a user's code would.
 *
 * Its optional peer dependencies (`fast-check`, `protobufjs`, `yaml`) are loaded when first needed; without one,
 * the feature that needs it throws an error that names the package and the command that installs it.
 * @module rxkube/testing
 * @packageDocumentation
 */
import '../runtime/node-version.js';
export type { ClusterHandle } from './cluster.js';
export { startTestCluster } from './apiserver/index.js';
export { SeedError } from './apiserver/index.js';
export type {
  TestCluster,
  TestClusterOptions,
  InMemoryServerOptions,
  FeatureGates,
  Faults,
  FailNextOptions,
  ConflictNextOptions,
  FailWritesOptions,
  SeedOptions,
  StatusBody,
  RequestLog,
  RequestRecord,
  RequestVerb,
} from './apiserver/index.js';
export { virtualCluster } from './virtual/index.js';
export type { ResponseHeaders } from './apiserver/index.js';
export type {
  ExchangeEvent,
  ConflictKeyOptions,
  NetworkFaultOptions,
  NetworkFaults,
  PartitionOptions,
  RawExchangeRequest,
  RawExchangeResponse,
  VirtualCluster,
  VirtualClusterOptions,
  VirtualDelay,
  VirtualFaults,
  VirtualLink,
  VirtualLinkOptions,
  VirtualNetworkOptions,
  VirtualRequestInfo,
  WarnNextOptions,
} from './virtual/index.js';
export { createCertificateAuthority, issueCertificate } from './pki/index.js';
export type { Pem, CertificateAuthority, CertificateUsage, IssueOptions } from './pki/index.js';
export {
  startControlPlane,
  existingCluster,
  resolveControlPlaneAssets,
  controlPlaneCacheDir,
  CONTROL_PLANE_VERSIONS,
} from './control-plane/index.js';
export type { ControlPlane, ControlPlaneOptions, ControlPlaneAssets } from './control-plane/index.js';
export { startTcpProxy } from './proxy/index.js';
export type { TcpProxy, TcpProxyMode, TcpProxyOptions, TcpProxyScope } from './proxy/index.js';
export {
  watchEvent,
  watchMarbles,
  marbleSource,
  fakeInformer,
  informerEventMarbles,
  expectReconciles,
  reconcileLetter,
  RECONCILE_LETTERS,
} from './marbles/index.js';
export type {
  MarbleDelta,
  MarbleHelpers,
  ExpectReconcilesOptions,
  ReconcileEventPattern,
  ReconcileExpectation,
} from './marbles/index.js';
export { recorder, streamName, parseRecording, replay } from './record/index.js';
export { traceHtml, type TraceHtmlOptions, type TraceSource } from './picture/index.js';
export type {
  Recorder,
  RecorderOptions,
  RecordingSink,
  RecordLine,
  RecordedReconcileEvent,
  ReplayDecision,
  ReplayDivergence,
  ReplayOptions,
  ReplayReport,
} from './record/index.js';
export { runController } from './harness/index.js';
export type { ControllerCrash, ControllerFaults, ControllerRun, RunControllerOptions } from './harness/index.js';
export {
  simulate,
  assertSimulation,
  runScenario,
  scenarioArbitrary,
  describeStep,
  describeEvent,
  CONTROLLER_FAULT_KINDS,
  FAULT_KINDS,
  laggingLink,
} from './simulate/index.js';
export type {
  SimulateOptions,
  SimulationFailure,
  SimulationReport,
  RunSettings,
  ScenarioRun,
  Scenario,
  ScenarioStep,
  CacheUnderTest,
  Check,
  FaultKind,
  FaultOptions,
  FaultStep,
  Invariants,
  SimulationWorld,
  Workload,
  WorkloadStep,
  CrashMode,
  CrashOptions,
  MergeEventsOptions,
  StaleViewOptions,
  WatchLag,
  LaggingLink,
} from './simulate/index.js';
