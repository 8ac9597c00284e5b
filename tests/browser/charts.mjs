// charts.mjs: issue 15's charts on the run page, asked in Korean and English and seen at 390 px and on a desktop:
// sorted bars for one grouping, grouped bars with a legend for two, timelines in time order with a panel per unit,
// no identifier on an axis, round ticks, nothing clipped or overflowing, and no chart where none fits.
import { BASE, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, LANGS, requireEnv, launch, context, signIn, setLang, shot,
  ask, overflow, step, must, finish } from './lib.mjs';

requireEnv();

// questions the offline planner answers on the demo database (tried with bin/askql ask)
const Q = {
  bar: { ko: '부서별 평균 나이', en: 'average age by department' },
  grouped: { ko: '진료과별 성별별 케이스 수', en: 'case count per department per sex' },
  vitals: { ko: '케이스 1의 바이탈 추이', en: 'vitals of case 1 over time' },
  mixed: { ko: '케이스 3의 심박수와 칼륨 추이', en: 'heart rate and potassium of case 3 over time' },
  // issue 15's defect: this timeline drew subjectid as the value
  perpatient: { ko: '지난 24시간 환자별 바이탈 타임라인', en: 'show a timeline of vitals and labs per patient for the last 24 hours' },
  single: { ko: '케이스 42의 수술 시작 시간', en: 'How many female patients are over 60?' },
};
const IDENT = /(^|[^a-z])(subject_?id|case_?id|hadm_id|patient_?id)([^a-z]|$)/i;

// chartOf: what the visible drawing of the run page's chart shows (the other drawing is display:none)
async function chartOf(page) {
  return page.evaluate(() => {
    const fig = document.querySelector('figure.chart-wrap');
    if (!fig) return null;
    const svgs = [...fig.querySelectorAll('svg.chart')];
    const svg = svgs.find((s) => getComputedStyle(s).display !== 'none');
    if (!svg) return { figure: true, visible: 0 };
    const box = svg.getBoundingClientRect();
    const txt = (sel) => [...svg.querySelectorAll(sel)].map((e) => (e.childNodes[0] && e.childNodes[0].nodeType === 3 ? e.childNodes[0].nodeValue : e.textContent).trim());
    // text outside the drawing's box is clipped
    const clipped = [...svg.querySelectorAll('text')].filter((t) => {
      const r = t.getBoundingClientRect();
      return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1);
    }).map((t) => t.textContent);
    return {
      figure: true, visible: svgs.filter((s) => getComputedStyle(s).display !== 'none').length, drawings: svgs.length,
      cls: svg.getAttribute('class'), width: box.width, winWidth: window.innerWidth,
      cats: [...svg.querySelectorAll('g.cat')].map((g) => g.getAttribute('data-label')),
      bars: [...svg.querySelectorAll('g.cat')].map((g) => [...g.querySelectorAll('rect.bar')].map((r) => Number(r.getAttribute('data-value')))),
      legend: [...svg.querySelectorAll('g.legend-item')].map((g) => g.getAttribute('data-name')),
      ticks: txt('text.tick'), axisTitles: txt('text.axis-title'), catLabels: txt('text.cat-label'),
      panels: [...svg.querySelectorAll('g.panel')].map((g) => g.getAttribute('data-unit')),
      lines: [...svg.querySelectorAll('polyline.series')].map((l) => ({
        name: l.getAttribute('data-series'),
        xs: l.getAttribute('points').trim().split(/\s+/).map((p) => Number(p.split(',')[0])),
      })),
      clipped,
    };
  });
}

// roundTicks: numbers evenly spaced by 1, 2 or 5 x 10^k, each a whole multiple of that step
function roundTicks(labels) {
  const v = labels.map((s) => Number(s.replace(/,/g, '')));
  if (v.length < 2 || v.some((x) => !Number.isFinite(x))) return `not numbers: ${labels.join(' / ')}`;
  const stepv = v[1] - v[0];
  const mant = stepv / 10 ** Math.floor(Math.log10(stepv) + 1e-9);
  if (![1, 2, 5].some((m) => Math.abs(mant - m) < 1e-6)) return `step ${stepv}: ${labels.join(' / ')}`;
  for (let i = 0; i < v.length; i++) {
    if (Math.abs(v[i] / stepv - Math.round(v[i] / stepv)) > 1e-6) return `not a multiple: ${labels[i]}`;
    if (i && Math.abs(v[i] - v[i - 1] - stepv) > stepv * 1e-6) return `uneven: ${labels.join(' / ')}`;
  }
  return '';
}

// common: what every chart must be, at any width
function common(c, vp) {
  must(c && c.figure, 'no chart');
  must(c.drawings === 2 && c.visible === 1, `drawings ${c.drawings}, visible ${c.visible}`);
  must(c.cls.includes(vp === PHONE ? 'chart-narrow' : 'chart-wide'), `the ${c.cls} drawing is shown at ${vp.width} px`);
  must(c.width <= c.winWidth, `chart ${c.width} px wide in a ${c.winWidth} px window`);
  must(c.clipped.length === 0, `clipped text: ${c.clipped.slice(0, 3).join(' | ')}`);
  for (const t of [...c.axisTitles, ...c.catLabels, ...c.legend])
    must(!IDENT.test(t), `an identifier on an axis or legend: ${t}`);
  for (const t of c.ticks) must(Number(t.replace(/,/g, '')) < 1e5, `an identifier-sized tick ${t}`);
}

async function openRun(page, id) {
  await page.goto(`${BASE}/runs/${id}`);
  must(await page.getAttribute('#run', 'data-status') === 'ok', 'run not ok: ' + await page.getAttribute('#run', 'data-status'));
}

const browser = await launch();
const desk = await signIn(await context(browser, DESKTOP), ADMIN_USER, ADMIN_PASS);
const phone = await signIn(await context(browser, PHONE), ADMIN_USER, ADMIN_PASS);

for (const lang of LANGS) {
  await setLang(desk, lang);
  await setLang(phone, lang);
  // each question asked once (desktop), its run page then seen at both widths
  const ids = {};
  for (const [what, q] of Object.entries(Q)) {
    await step(`${lang}: asked "${q[lang]}"`, async () => {
      ids[what] = await ask(desk, q[lang]);
      must(ids[what] > 0, 'no run page');
    });
  }
  for (const vp of [PHONE, DESKTOP]) {
    const page = vp === PHONE ? phone : desk, at = `${lang}-${vp.width}`;

    await step(`${at}: one grouping is sorted bars, largest first, with round ticks and the unit`, async () => {
      await openRun(page, ids.bar);
      await shot(page, `charts-bar-${at}`);
      const c = await chartOf(page);
      common(c, vp);
      must(await page.$('figure.chart-bar'), 'not a bar chart');
      must(c.cats.length === 4, `categories ${c.cats.join(', ')}`);
      const v = c.bars.map((b) => b[0]);
      must(v.every((x, i) => !i || v[i - 1] >= x), `not sorted: ${v.join(', ')}`);
      must(c.cats[0] === 'Urology', `first bar ${c.cats[0]}`);
      const r = roundTicks(c.ticks);
      must(!r, r);
      must(c.axisTitles.some((t) => t.includes('(years)')), `axis titles ${c.axisTitles.join(' | ')}`);
      must(c.legend.length === 0, 'a legend for one series');
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    await step(`${at}: two groupings are grouped bars with a legend, each department once`, async () => {
      await openRun(page, ids.grouped);
      await shot(page, `charts-grouped-${at}`);
      const c = await chartOf(page);
      common(c, vp);
      must(await page.$('figure.chart-grouped-bar'), 'not grouped bars');
      must(JSON.stringify([...c.legend].sort()) === '["F","M"]', `legend ${c.legend.join(', ')}`);
      must(new Set(c.cats).size === c.cats.length && c.cats.length === 4, `categories ${c.cats.join(', ')}`);
      const tot = c.bars.map((b) => b.reduce((a, x) => a + x, 0));
      must(tot.every((x, i) => !i || tot[i - 1] >= x), `not by total: ${tot.join(', ')}`);
      must(c.cats[0] === 'General surgery', `first ${c.cats[0]}`);
      must(c.bars.reduce((a, b) => a + b.length, 0) === 7, 'not 7 bars');
      const r = roundTicks(c.ticks);
      must(!r, r);
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    await step(`${at}: a case's vitals are one line per measure, in time order, a panel per unit`, async () => {
      await openRun(page, ids.vitals);
      await shot(page, `charts-vitals-${at}`);
      const c = await chartOf(page);
      common(c, vp);
      must(await page.$('figure.chart-line'), 'not a line chart');
      for (const m of ['sbp', 'dbp', 'mbp', 'hr', 'spo2', 'bt', 'rr']) must(c.legend.includes(m), `legend lacks ${m}: ${c.legend.join(', ')}`);
      must(c.lines.length === 7, `${c.lines.length} lines`);
      for (const l of c.lines) must(l.xs.every((x, i) => !i || l.xs[i - 1] <= x), `${l.name} goes back in time`);
      must(c.panels.includes('mmHg') && c.panels.includes('bpm') && c.panels.includes('°C'), `panels ${c.panels.join(', ')}`);
      must(c.axisTitles.some((t) => t.includes('(mmHg)')), `axis titles ${c.axisTitles.join(' | ')}`);
      // the y ticks of each panel are round (they are listed panel after panel)
      const perPanel = await page.evaluate(() => {
        const svg = [...document.querySelectorAll('figure.chart-wrap svg.chart')].find((s) => getComputedStyle(s).display !== 'none');
        return [...svg.querySelectorAll('g.panel')].map((g) => [...g.querySelectorAll('text.tick')].map((t) => t.textContent));
      });
      for (const t of perPanel) { const r = roundTicks(t); must(!r, r); }
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    await step(`${at}: heart rate and potassium (a long result) are two lines in two panels, in time order`, async () => {
      await openRun(page, ids.mixed);
      await shot(page, `charts-mixed-${at}`);
      const c = await chartOf(page);
      common(c, vp);
      must(JSON.stringify([...c.legend].sort()) === '["hr","k"]', `legend ${c.legend.join(', ')}`);
      must(c.panels.length === 2 && c.panels.includes('bpm') && c.panels.includes('mmol/L'), `panels ${c.panels.join(', ')}`);
      for (const l of c.lines) must(l.xs.every((x, i) => !i || l.xs[i - 1] <= x), `${l.name} goes back in time`);
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    await step(`${at}: a per-patient timeline draws one patient's measures (said in a note), never subjectid`, async () => {
      await openRun(page, ids.perpatient);
      await shot(page, `charts-perpatient-${at}`);
      const c = await chartOf(page);
      common(c, vp);
      must(await page.$('figure.chart-line'), 'not a line chart');
      must(c.lines.length >= 3 && c.lines.every((l) => !IDENT.test(l.name)), `lines ${c.lines.map((l) => l.name).join(', ')}`);
      for (const l of c.lines) must(l.xs.every((x, i) => !i || l.xs[i - 1] <= x), `${l.name} goes back in time`);
      must(c.panels.length >= 2, `panels ${c.panels.join(', ')}`);
      const note = await page.evaluate(() => {
        const svg = [...document.querySelectorAll('figure.chart-wrap svg.chart')].find((s) => getComputedStyle(s).display !== 'none');
        const n = svg.querySelector('text.note');
        return n ? n.textContent : '';
      });
      must(note.includes('subjectid') && note.includes(lang === 'ko' ? '표시' : 'Showing'), `note "${note}"`);
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    await step(`${at}: a single value has no chart and no empty frame`, async () => {
      await openRun(page, ids.single);
      await shot(page, `charts-none-${at}`);
      must(await page.$('table.data'), 'no result table');
      must(!(await page.$('figure.chart-wrap')), 'a chart frame');
      must(!(await page.$('svg.chart')), 'a chart');
    });
  }
}

await browser.close();
finish();
