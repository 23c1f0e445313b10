// Shared set-up for the browser tests: Debian's Chromium (/usr/bin/chromium, installed by
// scripts/setup.d/40-chromium.sh) driven by playwright-core, which downloads no browser.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = process.env.PEAKORDER_CHROMIUM || '/usr/bin/chromium';

/** A fresh headless browser with its own profile; close() removes the profile. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'peakorder-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1360, height: 1000 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens a page that records console errors, page errors and failed requests. */
export async function openPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  return { page, problems };
}

/** Waits until the view in `scope` has planned (data-state ready) and returns what it shows. */
export async function readView(page, scope = '.po-root') {
  await page.waitForSelector(`${scope}[data-state="ready"], ${scope}[data-state="error"]`, { timeout: 60000 });
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    const text = (id) => root.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    const dag = root.querySelector('[data-testid="dag"]');
    const svg = root.querySelector('.po-chart-svg');
    const series = {};
    for (const p of root.querySelectorAll('.po-series')) {
      const key = [...p.classList].find((c) => c.startsWith('po-series-')).slice('po-series-'.length);
      const b = p.getBBox();
      series[key] = { top: b.y, height: b.height, width: b.width, points: (p.getAttribute('d').match(/L/g) || []).length };
    }
    const peaks = {};
    for (const g of root.querySelectorAll('.po-peak')) {
      const key = [...g.classList].find((c) => c.startsWith('po-peak-')).slice('po-peak-'.length);
      peaks[key] = { cy: Number(g.querySelector('circle').getAttribute('cy')), label: g.querySelector('text').textContent };
    }
    return {
      state: root.dataset.state,
      status: root.querySelector('.po-status').textContent,
      program: text('program-peak'),
      programSub: text('program-peak-sub'),
      planned: text('planned-peak'),
      plannedSub: text('planned-peak-sub'),
      lowerBound: text('lower-bound'),
      optimal: text('optimal'),
      steps: svg ? Number(svg.getAttribute('data-steps')) : 0,
      series,
      peaks,
      dagNodes: dag.querySelectorAll('.po-node').length,
      dagDeclared: Number(dag.querySelector('[data-nodes]')?.getAttribute('data-nodes') || 0),
      dagVisible: Number(dag.querySelector('[data-visible]')?.getAttribute('data-visible') || 0),
      dagGroups: dag.querySelectorAll('.po-group').length,
      timelineSteps: Number(root.querySelector('.po-timeline-canvas')?.dataset.steps || 0),
      dagEdges: dag.querySelectorAll('.po-edge').length,
      liveEdges: dag.querySelectorAll('.po-edge-live').length,
      orderItems: root.querySelectorAll('[data-testid="order"] li').length,
    };
  }, scope);
}
