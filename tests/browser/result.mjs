// result.mjs: the run page's result (issue 15) in ko and en, at 390 px and desktop: the answer sentence of
// each shape (group, value, top N, yes/no, list, timeline), rounded numbers and catalog headers with the SQL
// name on hover, true row counts or "1,000+ (preview)", friendly database errors with the raw text behind
// <details> (a real statement timeout, and the common SQLSTATEs), and the collapsible SQL block.
import { execFileSync } from 'node:child_process';
import {
  ok, step, must, shot, requireEnv, launch, context, signIn, setLang, overflow, ask, finish,
  BASE, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, TOP,
} from './lib.mjs';

requireEnv();
const psql = (sql) => execFileSync('psql', ['-X', '-q', '-tA', '-v', 'ON_ERROR_STOP=1', '-d', 'askql', '-c', sql]).toString().trim();

// one question per shape and language, and what its answer must say
const SHAPES = {
  group: {
    // the subject is what the SQL computes, with the catalog's names (issue 26), not the question
    ko: ['진료과별 평균 나이', /^진료과\(department\)별 평균 나이\(age\): .+ \d+\.\d세로 가장 높고 .+ \d+\.\d세로 가장 낮습니다 \(4개 진료과\)$/],
    en: ['average age by department', /^Average .*age.* by .*\(department\): .+ is highest at \d+\.\d years and .+ lowest at \d+\.\d years \(4 departments\)$/],
  },
  value: {
    ko: ['환자 수', /^환자 수: \d{1,3}(,\d{3})*명$/],
    en: ['how many patients are there', /^Number of patients: \d{1,3}(,\d{3})* patients$/],
  },
  top_n: {
    // the cases counted by their key since issue 26 (a ranking by a counted entity counts it): the same numbers
    ko: ['수술 건수 상위 3개 진료과', /^진료과\(department\)별 (건수|케이스\(caseid\) 수), 상위 3개: (.+ \d{1,3}(,\d{3})*건, ){2}.+ \d{1,3}(,\d{3})*건 \(상위 3개\)$/],
    en: ['top 3 departments by number of cases', /^Number of (rows|different case ID \(caseid\)) by .*\(department\), top 3: (.+ \d{1,3}(,\d{3})*, ){2}.+ \d{1,3}(,\d{3})* \(top 3\)$/],
  },
  yesno: {
    ko: ['사망한 환자가 있나요?', /^.*\(death_inhosp\) = 1인 기록이 있는지: (예|아니요)$/],
    en: ['are there any patients who died in hospital?', /^Whether any row has .*\(death_inhosp\) = 1: (Yes|No)\.$/],
  },
  list: {
    ko: ['수술 목록', /^.*\(caseid\) 목록: 1,000행 이상 \(\d+, \d+, \d+, …\)$/],
    en: ['list all cases', /^List of .*caseid\)?: more than 1,000 rows \(\d+, \d+, \d+, …\)$/],
  },
  timeline: {
    ko: ['케이스 1의 심박수', /^.*\(caseid\) = 1인 .+ 목록: \S+ \S+부터 \S+ \S+까지 [\d.]+시간 동안 \d+건의 기록$/],
    en: ['heart rate of case 1', /^List of .+, where .*caseid\)? = 1: \d+ records over [\d.]+ hours, from \S+ \S+ to \S+ \S+$/],
  },
};
// what the header says of the whole result's size
const ROWS = {
  ko: { group: '4행', list: '1,000개 이상 (미리보기)', value: '1행' },
  en: { group: '4 rows', list: '1,000+ (preview)', value: '1 row' },
};
// failed runs: the friendly title each SQLSTATE gets (the timeout is a real one, the others are stored
// as the agent stores a database error)
const ERRORS = {
  timeout: { ko: '질의가 너무 오래 걸려 중단되었습니다.', en: 'The query took too long and was stopped.' },
  permission: { ko: '읽기 전용 계정에 이 질의가 읽어야 하는 테이블의 권한이 없습니다.', en: 'The read-only account may not read a table this query needs.' },
  column: { ko: '존재하지 않는 열을 사용한 질의입니다.', en: 'The query named a column that does not exist.' },
  table: { ko: '존재하지 않는 테이블을 사용한 질의입니다.', en: 'The query named a table that does not exist.' },
  divzero: { ko: '0으로 나누는 계산이 있었습니다 (행이 없는 그룹이나 0인 건수).', en: 'The query divided by zero (a group with no rows or a zero count).' },
};
const STORED = {
  permission: '42501: permission denied for table secrets',
  column: 'no working SQL after 3 of 3 attempts; last error: 42703: column "agee" does not exist',
  table: '42P01: relation "ward" does not exist',
  divzero: 'no working SQL after 3 of 3 attempts; last error: 22012: division by zero',
};

const browser = await launch();
const runs = { ko: {}, en: {} };
const errRuns = {};

try {
  // ---- the runs: asked through the ask page, in each language ----
  const dctx = await context(browser, DESKTOP);
  const admin = await signIn(dctx, ADMIN_USER, ADMIN_PASS);
  for (const lang of ['ko', 'en']) {
    await setLang(admin, lang);
    for (const [shape, q] of Object.entries(SHAPES)) {
      await step(`${lang}: asking "${q[lang][0]}" ends with a result`, async () => {
        runs[lang][shape] = await ask(admin, q[lang][0], 'auto');
        must(runs[lang][shape] > 0, 'no run id');
        const st = await admin.getAttribute('#run', 'data-status');
        must(st === 'ok', 'status ' + st);
      });
    }
  }
  // a real statement timeout: the same agent with a 1 ms statement_timeout (this run only)
  await step('a run with a 1 ms statement timeout fails with SQLSTATE 57014', async () => {
    let out;
    try {
      out = execFileSync(process.env.ASKQL || `${TOP}/bin/askql`, ['ask', '케이스별 평균 심박수'],
        { cwd: TOP, env: { ...process.env, ASKQL_STATEMENT_TIMEOUT_MS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    } catch (e) {
      out = String(e.stdout || '');   // a failed run exits non-zero
    }
    errRuns.timeout = Number((out.match(/run (\d+)/) || [])[1] || 0);
    must(errRuns.timeout > 0, 'no run id in: ' + out.slice(0, 200));
    const e = psql(`SELECT error FROM askql.runs WHERE id = ${errRuns.timeout}`);
    must(e.includes('57014'), 'error ' + e);
  });
  for (const [kind, text] of Object.entries(STORED)) {
    errRuns[kind] = Number(psql(`INSERT INTO askql.runs (question, status, error, sql, attempts)
      VALUES ('result.mjs ${kind}', 'error', '${text.replace(/'/g, "''")}', 'SELECT 1', 3) RETURNING id`));
  }
  // a run whose packager stored the model's sentence (conf answer_llm_rows; tests/integration/32_result_llm.sh
  // drives the model): the page shows it in the interface's language, marked as the model's
  if (runs.ko.group) {
    errRuns.llm = Number(psql(`INSERT INTO askql.runs (question, status, sql, columns, preview, row_count, tables, target, answer)
      SELECT 'result.mjs llm', status, sql, columns, preview, row_count, tables, target,
             '{"ko": "모델: 비뇨기과가 가장 높습니다.", "en": "Model: Urology is highest.", "by": "llm"}'
      FROM askql.runs WHERE id = ${runs.ko.group} RETURNING id`));
  }
  await dctx.close();

  // ---- every run at each width, in its language ----
  for (const [vp, vpName] of [[DESKTOP, 'desktop'], [PHONE, '390']]) {
    const ctx = await context(browser, vp);
    const page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
    for (const lang of ['ko', 'en']) {
      await setLang(page, lang);
      for (const [shape, q] of Object.entries(SHAPES)) {
        const id = runs[lang][shape];
        if (!id) { ok(false, `${lang} ${vpName}: ${shape} run missing`); continue; }
        await step(`${lang} ${vpName}: the ${shape} answer reads as a sentence`, async () => {
          await page.goto(`${BASE}/runs/${id}`);
          const a = page.locator('#answer');
          must(await a.getAttribute('data-kind') === shape, 'kind ' + await a.getAttribute('data-kind'));
          const t = (await a.textContent()).trim();
          must(q[lang][1].test(t), 'answer: ' + t);
          must(!/succeeded on attempt/.test(t), 'the old statistics line is shown');
          await shot(page, `result-${shape}-${lang}-${vpName}`);
        });
        if (ROWS[lang][shape]) {
          await step(`${lang} ${vpName}: the ${shape} result says ${ROWS[lang][shape]}`, async () => {
            const t = (await page.locator('#row-count').textContent()).trim();
            must(t === ROWS[lang][shape], 'row count: ' + t);
            if (shape === 'list') {
              must((await page.locator('#row-count').getAttribute('title') || '').includes('1000'), 'no preview hint');
              must(await page.locator('table.data tbody tr').count() === 50, 'a page of 50 rows');
            }
          });
        }
        if (vpName === '390') {
          await step(`${lang} 390: the ${shape} page does not scroll sideways`, async () => {
            const o = await overflow(page);
            must(o <= 1, `overflow ${o}px`);
          });
        }
      }
      // numbers and headers on the group run
      await step(`${lang} ${vpName}: averages to one decimal, headers from the catalog with the SQL name on hover`, async () => {
        await page.goto(`${BASE}/runs/${runs[lang].group}`);
        const th = page.locator('table.data thead th');
        const heads = (await th.allInnerTexts()).map((s) => s.replace(/[▲▼]/g, '').trim());
        const want = lang === 'ko' ? ['진료과', '평균 나이'] : ['Surgical department', 'Average age'];
        must(JSON.stringify(heads) === JSON.stringify(want), 'headers ' + JSON.stringify(heads));
        must(await th.nth(1).getAttribute('title') === 'avg', 'title ' + await th.nth(1).getAttribute('title'));
        must(await th.nth(0).getAttribute('title') === 'department', 'title of the first header');
        const cells = await page.locator('table.data tbody td.num').allInnerTexts();
        must(cells.length === 4 && cells.every((c) => /^\d+\.\d$/.test(c.trim())), 'cells ' + cells.join(' '));
        // the full value stays on hover
        must(/^\d+\.\d{5,}/.test(await page.locator('table.data tbody td.num').first().getAttribute('title') || ''), 'no full value');
      });
      await step(`${lang} ${vpName}: counts with thousands separators`, async () => {
        await page.goto(`${BASE}/runs/${runs[lang].top_n}`);
        const cells = await page.locator('table.data tbody td.num').allInnerTexts();
        must(cells.length >= 3 && cells.some((c) => /^\d{1,3},\d{3}$/.test(c.trim())), 'cells ' + cells.join(' '));
        const head = (await page.locator('table.data thead th').nth(1).innerText()).replace(/[▲▼]/g, '').trim();
        must((lang === 'ko' ? ['건수', '케이스 수'] : ['Count', 'Number of case ID']).includes(head), 'count header ' + head);
        const yn = await page.goto(`${BASE}/runs/${runs[lang].yesno}`).then(() => page.locator('table.data tbody td').first().innerText());
        must(['예', '아니요', 'Yes', 'No'].includes(yn.trim()) && /[가-힣]/.test(yn) === (lang === 'ko'), 'yes/no cell ' + yn);
      });
      // the SQL block: open on a desktop, folded on a phone, and it opens and closes
      await step(`${lang} ${vpName}: the SQL block is ${vpName === '390' ? 'folded' : 'open'} and toggles`, async () => {
        await page.goto(`${BASE}/runs/${runs[lang].group}`);
        const det = page.locator('details#sql-block');
        const open = await det.evaluate((d) => d.open);
        must(open === (vpName !== '390'), 'open=' + open);
        must(await page.locator('details#sql-block pre.sql').isVisible() === open, 'SQL visibility');
        await page.locator('details#sql-block > summary').click();
        must(await det.evaluate((d) => d.open) === !open, 'did not toggle');
        must(await page.locator('details#sql-block pre.sql').isVisible() === !open, 'SQL visibility after toggle');
        if (vpName === '390') {
          await page.locator('details#sql-block > summary').click();
          // folded, the table starts within the first two screens
          const top = await page.locator('section.result').evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
          must(top < 2 * PHONE.height, 'result starts at ' + top);
        }
        await shot(page, `result-sql-${lang}-${vpName}`);
      });
      await step(`${lang} ${vpName}: a sentence from the model is shown in ${lang}, marked as the model's`, async () => {
        await page.goto(`${BASE}/runs/${errRuns.llm}`);
        const a = page.locator('#answer');
        must(await a.getAttribute('data-by') === 'llm', 'by ' + await a.getAttribute('data-by'));
        const t = (await a.textContent()).trim();
        must(t.startsWith(lang === 'ko' ? '모델: 비뇨기과가 가장 높습니다.' : 'Model: Urology is highest.'), 'answer ' + t);
        must((await a.locator('.answer-note').innerText()).includes(lang === 'ko' ? '집계 행' : 'aggregate rows'), 'no note');
        if (vpName === 'desktop') await shot(page, `result-llm-${lang}-${vpName}`);
      });
      // friendly errors
      for (const [kind, title] of Object.entries(ERRORS)) {
        const id = errRuns[kind];
        if (!id) { ok(false, `${lang} ${vpName}: no ${kind} run`); continue; }
        await step(`${lang} ${vpName}: the ${kind} error is explained, the raw text behind a toggle`, async () => {
          await page.goto(`${BASE}/runs/${id}`);
          const box = page.locator('#run-error');
          must(await box.getAttribute('data-kind') === kind, 'kind ' + await box.getAttribute('data-kind'));
          must((await box.locator('.error-title').innerText()).trim() === title[lang], 'title ' + await box.locator('.error-title').innerText());
          const help = (await box.locator('.error-help').innerText()).trim();
          must(help.length > 20 && /[가-힣]/.test(help) === (lang === 'ko'), 'help ' + help);
          const raw = box.locator('details.error-raw code');
          must(!(await raw.isVisible()), 'the raw message is shown before the toggle');
          await box.locator('details.error-raw > summary').click();
          must(await raw.isVisible(), 'the raw message does not open');
          const code = { timeout: '57014', permission: '42501', column: '42703', table: '42P01', divzero: '22012' }[kind];
          must((await raw.innerText()).includes(code), 'raw text lacks ' + code);
          if (kind === 'timeout' || kind === 'column') await shot(page, `result-error-${kind}-${lang}-${vpName}`);
          if (vpName === '390') must(await overflow(page) <= 1, 'overflow ' + await overflow(page));
        });
      }
    }
    await ctx.close();
  }
  // an error without a known code stays as it was (no invented explanation)
  await step('an error without a known SQLSTATE is shown as written', async () => {
    const id = Number(psql(`INSERT INTO askql.runs (question, status, error) VALUES ('result.mjs plain', 'error',
      'the planner''s reply contains no SQL') RETURNING id`));
    const ctx = await context(browser, DESKTOP);
    const page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
    await page.goto(`${BASE}/runs/${id}`);
    must(await page.locator('#run-error .error-title').count() === 0, 'a friendly title was invented');
    must((await page.locator('#run-error').innerText()).includes('contains no SQL'), 'the error is not shown');
    await ctx.close();
  });
} finally {
  try { psql(`DELETE FROM askql.runs WHERE question LIKE 'result.mjs %'`); } catch (e) { /* best effort */ }
  await browser.close();
}
finish();
