/** Reading a manager's endpoints in specs: the examples' specs share it. */
export { histogramCount, probe, sample, scrape, metricValue } from '../../examples/shared/scrape.js';
