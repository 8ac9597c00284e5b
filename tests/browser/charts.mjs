// charts.mjs: issue 15's charts on the run page, asked in Korean and English and seen at 390 px and on a desktop:
// sorted bars for one grouping, grouped bars with a legend for two, timelines in time order with a panel per unit,
// no identifier on an axis, round ticks, nothing clipped or overflowing, and no chart where none fits; and (brief 17)
// every patient of a per-patient timeline through the chooser above the chart (without JavaScript, keeping the
// table's sorting, bad values shown as the first), bars of two measures (a panel each, or grouped with a legend), and
// axis titles that are the table's headers in the user's language.
import { BASE, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, LANGS, requireEnv, launch, context, signIn, setLang, shot,
  ask, overflow, step, must, finish } from './lib.mjs';
import { execFileSync } from 'node:child_process';

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
// two measures per department, through step mode's SQL edit (the offline planner asks one measure at a time):
// a count and an average age (two units: a panel each), and two counts of one scale (grouped, with a legend)
const SQL2 = {
  panels: 'SELECT department, count(*) AS n, round(avg(age), 1) AS avg_age FROM clinical_data_table GROUP BY department ORDER BY 1',
  twocounts: 'SELECT department, count(*) AS cases, count(DISTINCT subjectid) AS patients FROM clinical_data_table GROUP BY department ORDER BY 1',
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
      // what the note says of a per-patient timeline, and the headers' SQL names on hover
      note: (() => { const n = svg.querySelector('text.note'); return n ? { text: n.textContent, k: Number(n.getAttribute('data-entity')), n: Number(n.getAttribute('data-entities')) } : null; })(),
      panelTitles: txt('text.panel-title'),
      hovers: [...svg.querySelectorAll('text.axis-title > title, text.panel-title > title')].map((t) => t.textContent),
      barPanels: [...svg.querySelectorAll('g.bar-panel')].map((g) => Number(g.getAttribute('data-measures'))),
      points: [...svg.querySelectorAll('circle > title')].map((t) => t.textContent),
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

async function openRun(page, id, query = '') {
  const res = await page.goto(`${BASE}/runs/${id}${query}`);
  must(res.status() === 200, `status ${res.status()} for ${query}`);
  must(await page.getAttribute('#run', 'data-status') === 'ok', 'run not ok: ' + await page.getAttribute('#run', 'data-status'));
}

// clearCache: forget cached answers, so that step mode pauses again on a question asked before (as journey.mjs)
function clearCache() {
  try { execFileSync('psql', ['-X', '-q', '-d', 'askql', '-c', 'DELETE FROM askql.query_cache'], { stdio: 'ignore' }); }
  catch (e) { /* without psql the step below says what it found */ }
}

// askSql: ask question in step mode, approve the plan, replace the SQL with sql; returns the run id
async function askSql(page, question, sql) {
  clearCache();
  const id = await ask(page, question, 'step');
  must(await page.getAttribute('#run', 'data-status') === 'paused', 'not paused: ' + await page.getAttribute('#run', 'data-status'));
  if (!(await page.isVisible('#edit-sql')))
    await Promise.all([page.waitForNavigation(), page.click('#plan-form button.primary')]);
  must(await page.isVisible('#edit-sql'), 'no SQL to edit');
  await page.fill('#edit-sql', sql);
  await Promise.all([page.waitForNavigation(), page.click('#sql-form button.primary')]);
  must(await page.getAttribute('#run', 'data-status') === 'ok', 'status ' + await page.getAttribute('#run', 'data-status'));
  return id;
}

// headers: the result table's headers: SQL name -> the label shown
async function headers(page) {
  return Object.fromEntries(await page.$$eval('table.data thead th', (ths) => ths.map((th) => [th.getAttribute('data-col'), th.querySelector('a').textContent.trim()])));
}

// chooser: the per-patient chooser above the chart (null when absent)
async function chooser(page) {
  return page.evaluate(() => {
    const f = document.querySelector('form#chart-chooser');
    if (!f) return null;
    const sel = f.querySelector('select[name=patient]');
    const box = f.getBoundingClientRect();
    return {
      method: f.getAttribute('method'), label: f.querySelector('label').textContent.trim(),
      beforeChart: !!(f.compareDocumentPosition(document.querySelector('figure.chart-wrap')) & Node.DOCUMENT_POSITION_FOLLOWING),
      options: [...sel.options].map((o) => ({ value: o.value, text: o.textContent.trim(), selected: o.selected })),
      hidden: Object.fromEntries([...f.querySelectorAll('input[type=hidden]')].map((i) => [i.name, i.value])),
      right: box.right, winWidth: window.innerWidth, count: f.querySelector('small').textContent.trim(),
    };
  });
}
const HANGUL = /[\uac00-\ud7a3]/;

const browser = await launch();
const perpatientIds = {};
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
  perpatientIds[lang] = ids.perpatient;
  for (const [what, sql] of Object.entries(SQL2)) {
    await step(`${lang}: two measures per department through an edited SQL (${what})`, async () => {
      ids[what] = await askSql(desk, Q.bar[lang], sql);
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
      // the value axis is titled as the table's header of the average, in this language, the SQL name on hover
      const h = await headers(page), avgCol = Object.keys(h).find((k) => k !== 'department');
      must(c.axisTitles.includes(`${h[avgCol]} (years)`), `axis titles ${c.axisTitles.join(' | ')} vs header "${h[avgCol]}"`);
      must(lang !== 'ko' || HANGUL.test(h[avgCol]), `a Korean page's header "${h[avgCol]}"`);
      must(c.hovers.includes(avgCol), `hover titles ${c.hovers.join(' | ')}`);
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
      // one line per vital sign, named in the legend as the table's header of its column
      const h = await headers(page);
      for (const m of ['sbp', 'dbp', 'mbp', 'hr', 'spo2', 'bt', 'rr']) must(c.legend.includes(h[m]), `legend lacks ${m} (${h[m]}): ${c.legend.join(', ')}`);
      must(lang !== 'ko' || c.legend.every((t) => HANGUL.test(t)), `legend ${c.legend.join(', ')}`);
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
      const h = await headers(page);
      must(note.includes(h.subjectid) && note.includes(lang === 'ko' ? '표시' : 'Showing'), `note "${note}" (header "${h.subjectid}")`);
      must(c.note.k === 1 && c.note.n >= 2, `note says ${c.note.k} of ${c.note.n}`);
      must(lang !== 'ko' || note.includes(`${c.note.n}명 중 1번째`), `note "${note}"`);   // patients are counted with 명
      must(lang !== 'en' || note.includes(`(1 of ${c.note.n})`), `note "${note}"`);
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    let first = null;
    await step(`${at}: the per-patient timeline has a chooser above it listing every patient with its rows, the first chosen`, async () => {
      await openRun(page, ids.perpatient);
      const ch = await chooser(page), c = await chartOf(page);
      must(ch, 'no chooser');
      must(ch.method === 'get' && ch.beforeChart, `method ${ch.method}, before the chart ${ch.beforeChart}`);
      must(ch.options.length === c.note.n, `${ch.options.length} options for ${c.note.n} patients`);
      must(ch.options.map((o) => o.value).join(',') === ch.options.map((o, i) => String(i + 1)).join(','), 'options are not 1..N (an identifier in the URL?)');
      must(ch.options[0].selected, 'the first is not chosen');
      const rowsRe = lang === 'ko' ? /^\S+ \((\d+)행\)$/ : /^\S+ \((\d+) rows?\)$/;
      const total = ch.options.reduce((a, o) => { const m = o.text.match(rowsRe); must(m, `option "${o.text}"`); return a + Number(m[1]); }, 0);
      const shown = Number(((await page.getAttribute('#row-count', 'title')) || (await page.textContent('#row-count'))).replace(/[^0-9]/g, ''));
      must(total === shown || total <= shown, `options count ${total} rows, the result ${shown}`);
      must(c.note.text.includes(ch.options[0].text.split(' ')[0]), `note "${c.note.text}" does not name "${ch.options[0].text}"`);
      must(ch.label.includes((await headers(page)).subjectid), `label "${ch.label}"`);
      must(ch.right <= ch.winWidth, `chooser ${ch.right} px in a ${ch.winWidth} px window`);
      // how many patients, said for the rows shown when the stored rows are the first of a longer result
      const truncated = (await page.textContent('#row-count')).includes('+');
      const want = lang === 'ko' ? (truncated ? `표시된 행에 ${ch.options.length}명` : `결과에 ${ch.options.length}명`)
        : (truncated ? `${ch.options.length} in the rows shown` : `${ch.options.length} in the result`);
      must(ch.count.includes(want), `count "${ch.count}", wanted "${want}"`);
      first = c;
    });

    await step(`${at}: choosing the second patient (no JavaScript: the form's GET) draws its measures and the note names it`, async () => {
      await openRun(page, ids.perpatient);
      const ch = await chooser(page);
      await page.selectOption('#chart-entity', '2');
      await Promise.all([page.waitForNavigation(), page.click('#chart-chooser button[type=submit]')]);
      must(/[?&]patient=2(&|#|$)/.test(page.url()), `url ${page.url()}`);
      await shot(page, `charts-patient2-${at}`);
      const c = await chartOf(page), ch2 = await chooser(page);
      common(c, vp);
      must(c.note.k === 2 && c.note.n === first.note.n, `note says ${c.note.k} of ${c.note.n}`);
      must(c.note.text.includes(ch.options[1].text.split(' ')[0]), `note "${c.note.text}" does not name "${ch.options[1].text}"`);
      must(!c.note.text.includes(ch.options[0].text.split(' ')[0]), `note "${c.note.text}" still names the first`);
      must(lang !== 'ko' || c.note.text.includes(`${c.note.n}명 중 2번째`), `note "${c.note.text}"`);
      must(lang !== 'en' || c.note.text.includes(`(2 of ${c.note.n})`), `note "${c.note.text}"`);
      must(ch2.options[1].selected, 'the chooser does not show the second as chosen');
      must(c.lines.length >= 1 && c.lines.every((l) => !IDENT.test(l.name)), `lines ${c.lines.map((l) => l.name).join(', ')}`);
      must(JSON.stringify(c.points) !== JSON.stringify(first.points), 'the same points as the first patient');
      for (const l of c.lines) must(l.xs.every((x, i) => !i || l.xs[i - 1] <= x), `${l.name} goes back in time`);
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    await step(`${at}: sorting the table keeps the chosen patient, and the chooser keeps the sorting`, async () => {
      await openRun(page, ids.perpatient, '?patient=2');
      await Promise.all([page.waitForNavigation(), page.click('table.data thead th:nth-child(2) a')]);
      must(/[?&]sort=1/.test(page.url()) && /[?&]patient=2/.test(page.url()), `url ${page.url()}`);
      const c = await chartOf(page), ch = await chooser(page);
      must(c.note.k === 2, `note says ${c.note.k}`);
      must(ch.hidden.sort === '1' && ch.hidden.dir === 'asc', `hidden ${JSON.stringify(ch.hidden)}`);
      await page.selectOption('#chart-entity', '1');
      await Promise.all([page.waitForNavigation(), page.click('#chart-chooser button[type=submit]')]);
      must(/[?&]sort=1/.test(page.url()) && /[?&]patient=1/.test(page.url()), `url ${page.url()}`);
      must((await chartOf(page)).note.k === 1, 'not the first');
    });

    await step(`${at}: an unknown, wrong or too long patient shows the first, with no error page`, async () => {
      for (const q of ['?patient=999', '?patient=0', '?patient=-2', '?patient=abc', '?patient=%3Cb%3E', `?patient=${'9'.repeat(90)}`, '?patient=']) {
        await openRun(page, ids.perpatient, q);
        const c = await chartOf(page);
        must(c && c.note && c.note.k === 1, `${q}: note ${c && c.note && c.note.k}`);
        must(!(await page.$('.alert')), `${q}: an alert`);
      }
    });

    await step(`${at}: a count and an average per department are two panels, each titled as its table header`, async () => {
      await openRun(page, ids.panels);
      await shot(page, `charts-measures-${at}`);
      const c = await chartOf(page), h = await headers(page);
      common(c, vp);
      must(await page.$('figure.chart-bar'), 'not a bar chart');
      must(JSON.stringify(c.barPanels) === '[1,1]', `panels ${JSON.stringify(c.barPanels)}`);
      must(c.panelTitles.length === 2 && c.panelTitles[0] === h.n && c.panelTitles[1] === `${h.avg_age} (years)`,
        `panel titles ${c.panelTitles.join(' | ')} vs headers ${h.n} | ${h.avg_age}`);
      must(lang !== 'ko' || (HANGUL.test(h.n) && HANGUL.test(h.avg_age)), `headers ${h.n} | ${h.avg_age}`);
      must(c.hovers.includes('n') && c.hovers.includes('avg_age'), `hover ${c.hovers.join(' | ')}`);
      // each department once per panel, the same order in both, every bar drawn
      const half = c.cats.length / 2;
      must(half === 4 && JSON.stringify(c.cats.slice(0, half)) === JSON.stringify(c.cats.slice(half)), `categories ${c.cats.join(', ')}`);
      must(c.bars.every((b) => b.length === 1), 'a category without its bar');
      must(c.legend.length === 0, 'a legend for panels');
      must(await overflow(page) <= 1, 'sideways overflow');
    });

    await step(`${at}: two counts of one scale are grouped bars with a legend of the table's headers`, async () => {
      await openRun(page, ids.twocounts);
      await shot(page, `charts-twocounts-${at}`);
      const c = await chartOf(page), h = await headers(page);
      common(c, vp);
      must(JSON.stringify(c.barPanels) === '[2]', `panels ${JSON.stringify(c.barPanels)}`);
      must(JSON.stringify(c.legend) === JSON.stringify([h.cases, h.patients]), `legend ${c.legend.join(', ')} vs headers ${h.cases}, ${h.patients}`);
      must(lang !== 'ko' || c.legend.every((t) => HANGUL.test(t)), `legend ${c.legend.join(', ')}`);
      must(c.cats.length === 4 && c.bars.every((b) => b.length === 2), `bars ${JSON.stringify(c.bars)}`);
      must(c.axisTitles.some((t) => t.startsWith(`${h.cases}, ${h.patients}`)), `axis titles ${c.axisTitles.join(' | ')}`);
      must(c.hovers.includes('cases, patients'), `hover ${c.hovers.join(' | ')}`);
      const v = c.bars.map((b) => b[0]);
      must(v.every((x, i) => !i || v[i - 1] >= x), `not by the first measure: ${v.join(', ')}`);
      const r = roundTicks(c.ticks);
      must(!r, r);
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

// without JavaScript: the chooser is a plain GET form, so choosing still works
await step('no JavaScript: choosing the second patient still draws it', async () => {
  const ctx = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
  const page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
  await setLang(page, 'en');
  const id = perpatientIds.en;
  must(id > 0, 'no per-patient run');
  await openRun(page, id);
  must(await page.getAttribute('svg.chart-narrow text.note', 'data-entity') === '1', 'not the first by default');
  await page.selectOption('#chart-entity', '2');
  await Promise.all([page.waitForNavigation(), page.click('#chart-chooser button[type=submit]')]);
  must(/[?&]patient=2(&|#|$)/.test(page.url()), `url ${page.url()}`);
  must(await page.getAttribute('svg.chart-narrow text.note', 'data-entity') === '2', 'not the second');
  await shot(page, 'charts-nojs-en-390');
  await ctx.close();
});

await browser.close();
finish();
