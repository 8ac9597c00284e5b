// report.mjs: critique reports in headless Chromium, in Korean and English, at 390 px and on a desktop: the form,
// one title, tables in time order, drug classes, knowledge cited per finding topic, Korean sentences, the timeline
// SVG, evidence links, downloads (TAP). Screenshots: build/screenshots/report-<what>-<lang>-<width>.png.
import { BASE, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, LANGS, DL, SHOTS, ok, step, must, shot, requireEnv, launch, context,
  signIn, setLang, overflow, finish } from './lib.mjs';
import { join } from 'node:path';

requireEnv();
const HANGUL = /[\uac00-\ud7a3]/;
// the drugs of demo case 1 and the class each belongs to (conf/critique/drug_classes.tsv)
const DRUGS = { fentanyl: 'opioid', propofol: 'hypnotic', rocuronium: 'neuromuscular_blocker', cefazolin: 'antibiotic',
  'hydroxyethyl starch': 'colloid', phenylephrine: 'vasopressor', 'plasma solution a': 'crystalloid' };
const CLASS_NAMES = {
  ko: { opioid: '아편유사 진통제', hypnotic: '정맥 마취제·진정제', neuromuscular_blocker: '신경근 차단제', antibiotic: '항생제', colloid: '교질액' },
  en: { opioid: 'opioid analgesic', hypnotic: 'hypnotic / IV anaesthetic', neuromuscular_blocker: 'neuromuscular blocker',
    antibiotic: 'antibiotic', colloid: 'colloid' },
};
// the knowledge document a finding's topic calls for, and those it must not cite
const TOPIC = { sbp: ['hypotension', ['lactate', 'potassium']], mbp: ['hypotension', ['lactate', 'potassium']],
  lac: ['lactate', ['hypotension', 'potassium']], k: ['potassium', ['hypotension', 'lactate']] };
const TITLE = { ko: '검토 보고서', en: 'Critique report' };

const browser = await launch();
const errors = [];
let reportUrl = '', textUrl = '';

// times of a table's first column as seconds since the epoch (dates) or since midnight (clock times)
async function times(page, sel) {
  const ts = await page.$$eval(`${sel} tr td:first-child`, tds => tds.map(td => td.textContent.trim()));
  return ts.map(t => {
    const m = t.match(/^(?:(\d{4})-(\d\d)-(\d\d)[ T])?(\d\d):(\d\d)(?::(\d\d))?/);
    if (!m) return NaN;
    const day = m[1] ? Date.UTC(+m[1], +m[2] - 1, +m[3]) / 1000 : 0;
    return day + (+m[4]) * 3600 + (+m[5]) * 60 + (+(m[6] || 0));
  });
}
const ascending = (a) => a.every((x, i) => i === 0 || a[i - 1] <= x);

try {
  // ---- create the reports once (Korean interface, desktop) ----
  {
    const ctx = await context(browser, DESKTOP);
    const page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
    page.on('pageerror', e => errors.push(e.message));
    await setLang(page, 'ko');
    await page.goto(`${BASE}/reports`);
    await step('the reports page offers the critique form', async () => (await page.locator('#critique-form').count()) === 1);
    await page.fill('#critique-form input[name="case"]', '1');
    await Promise.all([page.waitForURL(/\/reports\/\d+$/, { timeout: 60000 }), page.click('#critique-form button[type="submit"]')]);
    reportUrl = page.url();
    ok(/\/reports\/\d+$/.test(reportUrl), 'submitting case 1 opens its report', reportUrl);
    await page.goto(`${BASE}/reports`);
    await page.fill('#critique-form textarea[name="text"]',
      '70-year-old man, ASA 3.\n09:00 BP 118/70.\n09:05 BP 116/68.\n09:10 BP 76/40.\n09:15 phenylephrine 100 mcg given.\n' +
      '09:20 BP 84/45.\n11:00 BP 120/72.\n11:05 BP 119/70.');
    await Promise.all([page.waitForURL(/\/reports\/\d+$/, { timeout: 60000 }), page.click('#critique-form button[type="submit"]')]);
    textUrl = page.url();
    ok(/\/reports\/\d+$/.test(textUrl) && textUrl !== reportUrl, 'pasted chart text opens its own report', textUrl);
    await ctx.close();
  }

  // ---- every language at every width ----
  for (const lang of LANGS) {
    for (const vp of [PHONE, DESKTOP]) {
      const w = vp.width, tag = `${lang} ${w}px`;
      const ctx = await context(browser, vp);
      const page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
      page.on('pageerror', e => errors.push(e.message));
      await setLang(page, lang);

      // one title: menu, list heading, report heading and window title say the same
      await page.goto(`${BASE}/reports`);
      await step(`${tag}: one title for critique reports (menu, list, report, window)`, async () => {
        const menu = (await page.locator('header nav a[href="/reports"]').innerText()).trim();
        const list = (await page.locator('main h1').first().innerText()).trim();
        must(menu === TITLE[lang], `menu says "${menu}"`);
        must(list.startsWith(TITLE[lang]), `list heading says "${list}"`);
        await page.goto(reportUrl);
        const h1 = (await page.locator('main h1').first().innerText()).trim();
        const title = await page.title();
        must(h1.startsWith(TITLE[lang] + ':'), `report heading says "${h1}"`);
        must(title.startsWith(TITLE[lang]), `window title says "${title}"`);
        if (lang === 'ko') must(!(await page.locator('body').innerText()).includes('비판'), 'the page still says 비판');
      });
      await shot(page, `report-top-${lang}-${w}`);

      await step(`${tag}: the summary names case 1 in the reader's language`, async () => {
        const s = await page.locator('#summary .summary').innerText();
        must(s.includes(lang === 'ko' ? '케이스 1' : 'Case 1'), s);
        must(lang === 'ko' ? HANGUL.test(s) : !HANGUL.test(s), `summary language: ${s.slice(0, 120)}`);
      });

      // tables in time order
      for (const [sel, what] of [['#chart table.vitals', 'vital signs'], ['#chart table.labs', 'labs'], ['#chart table.meds', 'medications']]) {
        await step(`${tag}: ${what} table in time order`, async () => {
          const t = await times(page, sel);
          must(t.length >= 2, `${t.length} timed rows`);
          must(t.every(x => !Number.isNaN(x)), 'a row without a readable time');
          must(ascending(t), `out of order: ${t.join(',')}`);
        });
      }

      // drug classes
      await step(`${tag}: anaesthesia and surgical drugs are classified, class names in the reader's language`, async () => {
        const rows = await page.$$eval('#chart table.meds tr[data-class]', trs => trs.map(tr => ({
          cls: tr.getAttribute('data-class'), text: tr.children[1].textContent.toLowerCase(), label: tr.children[2].textContent.trim() })));
        must(rows.length > 0, 'no medication rows');
        for (const [drug, cls] of Object.entries(DRUGS)) {
          const r = rows.filter(x => x.text.startsWith(drug));
          must(r.length > 0, `${drug} not listed`);
          must(r.every(x => x.cls === cls), `${drug}: ${r.map(x => x.cls).join(',')} (want ${cls})`);
          if (CLASS_NAMES[lang][cls]) must(r.every(x => x.label === CLASS_NAMES[lang][cls]), `${drug} shows "${r[0].label}"`);
        }
        must(!rows.some(x => x.cls === 'other'), `still "other": ${rows.filter(x => x.cls === 'other').map(x => x.text).join('; ')}`);
      });

      // knowledge cited per finding topic
      await step(`${tag}: each finding cites the knowledge document on its topic, not its neighbours'`, async () => {
        const pts = await page.$$eval('#critique li.point[data-category="abnormal_finding"]', lis => lis.map(li => ({
          param: li.getAttribute('data-param'), kb: [...li.querySelectorAll('a.kb')].map(a => a.textContent) })));
        const checked = [];
        for (const p of pts) {
          const want = TOPIC[p.param];
          if (!want) continue;
          must(p.kb.length > 0, `${p.param}: no knowledge cited`);
          must(p.kb.every(s => s.toLowerCase().includes(want[0])), `${p.param} cites ${p.kb.join(', ')}`);
          for (const bad of want[1]) must(!p.kb.some(s => s.toLowerCase().includes(bad)), `${p.param} cites ${bad}`);
          checked.push(p.param);
        }
        must(checked.includes('sbp') && checked.includes('lac'), `topics checked: ${checked.join(',')}`);
      });

      // offline sentences in the reader's language
      await step(`${tag}: offline sentences in the reader's language (findings, treatment, critique, notes)`, async () => {
        const parts = [
          await page.locator('#chart ul.findings li').first().innerText(),
          await page.locator('#treatment li').first().innerText(),
          await page.locator('#critique .critique-summary').innerText(),
          await page.locator('#critique li.point').first().innerText(),
          await page.locator('#diagnosis p.offline').innerText(),
          await page.locator('#alternatives p.offline').innerText(),
        ];
        for (const p of parts) must(lang === 'ko' ? HANGUL.test(p) : !HANGUL.test(p), `not in ${lang}: ${p.slice(0, 100)}`);
        if (lang === 'ko') must(parts[0].includes('수축기 혈압') || parts[0].includes('젖산'), parts[0]);
      });

      if (w === PHONE.width) {
        await step(`${tag}: the report does not scroll sideways at 390 px`, async () => {
          const o = await overflow(page);
          must(o <= 1, `${o} px wider than the window`);
        });
      }
      await page.locator('#chart').screenshot({ path: join(SHOTS, `report-chart-${lang}-${w}.png`) }).catch(() => {});
      await page.locator('#critique').scrollIntoViewIfNeeded();
      await shot(page, `report-${lang}-${w}`);

      // the timeline and evidence links (same in both languages)
      await step(`${tag}: the timeline SVG marks out-of-range points and has an SBP panel`, async () => {
        const oor = await page.locator('svg.timeline circle.oor').count();
        const pts = await page.locator('svg.timeline circle.pt').count();
        must(oor > 0 && pts > oor, `${oor} of ${pts}`);
        must(await page.locator('svg.timeline g.series[data-name="sbp"]').count() === 1, 'no SBP panel');
      });
      await step(`${tag}: a critique point links to its chart row`, async () => {
        const ev = page.locator('#critique a.ref').first();
        const href = await ev.getAttribute('href');
        await ev.click();
        must(href.startsWith('#row-') && await page.locator(`[id="${href.slice(1)}"]`).count() === 1 && page.url().endsWith(href), href);
      });
      if (w === DESKTOP.width) {
        await step(`${tag}: nodes ran and skipped are shown, each skipped one says why`, async () => {
          const ran = await page.locator('#nodes tr[data-status="ok"]').count();
          const skipped = await page.locator('#nodes tr[data-status="skipped"]').count();
          must(ran >= 15 && skipped >= 1, `${ran} ran, ${skipped} skipped`);
          const why = await page.locator('#nodes tr[data-status="skipped"] td:nth-child(5)').first().innerText();
          must(why.trim().length > 0, 'no reason');
          must(await page.locator('#verifier table.similar tr').count() > 1, 'no similar cases');
        });
        await page.locator('#timeline').screenshot({ path: join(SHOTS, `report-timeline-${lang}-${w}.png`) }).catch(() => {});
      }

      // the pasted chart: gap shaded, evidence links reach the text, sentences in the reader's language
      await page.goto(textUrl);
      await step(`${tag}: pasted text: the record gap is shaded and spans are marked`, async () => {
        must(await page.locator('svg.timeline rect.gap').count() === 1, 'no shaded gap');
        must(await page.locator('#chart mark[id^="span-"]').count() >= 2, 'fewer than 2 marked spans');
        const evl = page.locator('#critique a.ev[href^="#span-"]').first();
        const evHref = await evl.getAttribute('href');
        await evl.click();
        must(page.url().endsWith(evHref) && await page.locator(`[id="${evHref.slice(1)}"]`).count() === 1, evHref);
        const s = await page.locator('#summary .summary').innerText();
        must(s.includes(lang === 'ko' ? '붙여 넣은 차트' : 'Pasted chart'), s);
        const gap = await page.locator('#critique li.point[data-category="record_gap"]').first().innerText();
        must(gap.includes(lang === 'ko' ? '기록 공백' : 'Record gap'), gap);
      });
      if (w === PHONE.width) ok(await overflow(page) <= 1, `${tag}: the pasted-text report does not scroll sideways`);
      await shot(page, `report-text-${lang}-${w}`);

      // downloads: once per language, on the desktop
      if (w === DESKTOP.width) {
        await page.goto(reportUrl);
        await step(`${tag}: JSON and standalone HTML downloads; the file opens offline with the same report`, async () => {
          const [dj] = await Promise.all([page.waitForEvent('download'), page.click('a.download-json')]);
          must(/critique-report-\d+\.json$/.test(dj.suggestedFilename()), dj.suggestedFilename());
          const [dh] = await Promise.all([page.waitForEvent('download'), page.click('a.download-html')]);
          must(/critique-report-\d+\.html$/.test(dh.suggestedFilename()), dh.suggestedFilename());
          const file = join(DL, `report-download-${lang}.html`);
          await dh.saveAs(file);
          const points = await page.locator('#critique ol.points > li').count();
          const sa = await ctx.newPage();
          await sa.goto('file://' + file);
          must(await sa.locator('svg.timeline').count() === 1, 'no timeline in the file');
          must(await sa.locator('#critique ol.points > li').count() === points, 'different points');
          must((await sa.locator('h1').innerText()).startsWith(TITLE[lang]), 'file title');
          const sum = await sa.locator('#summary .summary').innerText();
          must(lang === 'ko' ? HANGUL.test(sum) : !HANGUL.test(sum), 'file summary language');
          await sa.close();
        });
        await page.goto(`${BASE}/reports`);
        await step(`${tag}: the reports list shows both reports, summaries in the reader's language`, async () => {
          must(await page.locator('table.report-list a[href^="/reports/"]').count() >= 2, 'fewer than 2');
          const s = await page.locator('table.report-list td.small').first().innerText();
          must(lang === 'ko' ? HANGUL.test(s) : !HANGUL.test(s), s.slice(0, 80));
        });
        await shot(page, `report-list-${lang}-${w}`);
      }
      await ctx.close();
    }
  }
  ok(errors.length === 0, 'no JavaScript errors', errors.join('; '));
} catch (e) {
  ok(false, 'report browser test ran to the end', e.stack || e);
} finally {
  await browser.close();
}
finish();
