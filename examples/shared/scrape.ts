/**
 * Reading a manager's endpoints in specs (the examples' and rxkube's own): `/metrics` parsed by a Prometheus text
 * parser, probes as status + body.
 * @module
 */
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';
import type { Registry } from 'prom-client';

/** The metric families of `url`/metrics, by name. */
export async function scrape(url: string): Promise<Map<string, ParsedFamily>> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`GET ${url}/metrics: ${response.status}`);
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/plain')) throw new Error(`GET ${url}/metrics: content type ${contentType}`);
  return new Map(parsePrometheusTextFormat(await response.text()).map((family) => [family.name, family]));
}

/** The sample of `family` whose labels include `labels`; throws when there is none. */
export function sample(
  families: Map<string, ParsedFamily>,
  name: string,
  labels: Record<string, string> = {},
): ParsedSample {
  const family = families.get(name);
  if (family === undefined) throw new Error(`no metric ${name}`);
  const found = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (found === undefined)
    throw new Error(
      `no sample of ${name} with ${JSON.stringify(labels)}; have ${JSON.stringify(family.metrics.map((m) => m.labels))}`,
    );
  return found;
}

/** The value of a counter or gauge sample. */
export function metricValue(
  families: Map<string, ParsedFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  return Number(sample(families, name, labels).value);
}

/**
 * The `_count` of a labelled histogram, read through prom-client's own API: the text parser flattens labelled
 * histograms into one sample and loses their labels.
 */
export async function histogramCount(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name} in the registry`);
  const { values } = await metric.get();
  const found = (values as Array<(typeof values)[number] & { metricName?: string }>).find(
    (v) => v.metricName === `${name}_count` && Object.entries(labels).every(([k, l]) => v.labels[k] === l),
  );
  if (found === undefined) throw new Error(`no ${name}_count with ${JSON.stringify(labels)}`);
  return found.value;
}

/** GET `url`+`path`: status and body. */
export async function probe(url: string, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: await response.text() };
}
