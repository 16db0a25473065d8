/** Reading a manager's endpoints in specs: the examples' specs share it. */
export { histogramCount, probe, sample, scrape, valueOf } from '../../examples/shared/scrape.js';
