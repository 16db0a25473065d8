import { expect } from 'chai';
import { heapTrend } from '../../soak/checks.js';
import { heapPlot } from '../../soak/plot.js';

describe('the soak heap plot', () => {
  it('draws the fit through the fitted readings, stepping up where the replica led, and names the step', () => {
    const readings = [0, 1, 2, 3, 4, 5].map((i) => ({
      at: i * 60_000,
      bytes: (i < 3 ? 70 : 80) * 2 ** 20,
      leading: i >= 3,
    }));
    const trend = heapTrend(readings);
    const svg = heapPlot(readings, trend);
    expect(svg).to.match(/^<svg /);
    expect(svg).to.contain('leading +10.0 MiB');
    const points = /<polyline points="([^"]*)"/
      .exec(svg)![1]!
      .split(' ')
      .map((p) => Number(p.split(',')[1]));
    expect(points).to.have.length(6);
    // SVG y grows downwards: the three leading readings sit higher on the page, at one level, as do the three before.
    expect(new Set(points.slice(0, 3)).size).to.equal(1);
    expect(new Set(points.slice(3)).size).to.equal(1);
    expect(points[3]!).to.be.lessThan(points[0]!);
  });

  it('says so when there are no readings', () => {
    expect(heapPlot([], undefined)).to.contain('no heap readings');
  });
});
