// steps.mjs: steps in words and step-by-step mode (issue 15), in Korean and English, at 390 px and on a desktop:
// the plan with include-ticks and its join diagram, one primary button per pause, a refused edit (DELETE) that keeps
// the text in the box with the guard's reason beside it and uses no attempt, a valid UNION edit that runs without a
// false JOIN warning, translated labels and statuses, the raw JSON behind a toggle, EXPLAIN findings in words.
import { BASE, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, LANGS, T, ok, step, must, shot, requireEnv, launch, context,
  signIn, setLang, overflow, ask, finish } from './lib.mjs';

requireEnv();
const QUESTION = { ko: '남자 환자의 칼륨 평균', en: 'average potassium of male patients' };
const REACT_Q = { ko: '부서별 평균 나이', en: 'average age by department' };
// what the page must say, per language (from conf/i18n/<lang>.steps.json)
const SAY = {
  ko: { json: '원본 기록 보기 (JSON)', refused: '읽기 전용 SELECT', ok: '완료', found: '찾았습니다', noAttempt: '시도 횟수는 쓰지 않았습니다',
        explain: '예상 비용', mapped: '저장된 값으로 바꾼 단어', joins: '테이블을 잇는 방법' },
  en: { json: 'Show the raw record (JSON)', refused: 'read-only SELECT', ok: 'done', found: 'Found', noAttempt: 'No attempt was used',
        explain: 'Estimated cost', mapped: 'Words mapped to stored values', joins: 'How the tables are joined' },
};
// a UNION whose two arms have two joins each: 4 joins in all, at most 2 in one SELECT (no warning)
const UNION_SQL = `SELECT 'potassium' AS what, count(*) AS n FROM clinical_data_table a
  JOIN lab_data_table b ON b.caseid = a.caseid JOIN diagnosis_table d ON d.subject_id = a.subjectid
  WHERE a.caseid = 1 AND b.name = 'k'
UNION ALL
SELECT 'sodium', count(*) FROM clinical_data_table a
  JOIN lab_data_table b ON b.caseid = a.caseid JOIN diagnosis_table d ON d.subject_id = a.subjectid
  WHERE a.caseid = 1 AND b.name = 'na'`;

const browser = await launch();
for (const [vw, size] of [['390', PHONE], ['desktop', DESKTOP]]) {
  for (const lang of LANGS) {
    const tag = `${lang}-${vw}`;
    const ctx = await context(browser, size);
    let page;
    await step(`${tag}: sign in and switch the interface to ${lang}`, async () => {
      page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
      await setLang(page, lang);
    });
    if (!page) { await ctx.close(); continue; }
    page.setDefaultTimeout(T);

    // ---- the plan pause ----
    let tables = 0;
    await step(`${tag}: step mode pauses on the plan; every table and mapping is ticked to include`, async () => {
      await ask(page, QUESTION[lang], 'step');
      must(await page.getAttribute('#confirm', 'data-stage') === 'plan', 'not paused on the plan');
      tables = await page.locator('#plan-form input[name=include_table]').count();
      must(tables >= 2, `only ${tables} tables offered`);
      const boxes = page.locator('#plan-form input[type=checkbox]');
      const n = await boxes.count();
      for (let i = 0; i < n; i++) must(await boxes.nth(i).isChecked(), `checkbox ${i} not ticked`);
      must(await page.locator('#plan-form input[name^=remove_]').count() === 0, 'a remove tick is still offered');
      must(await page.locator('#plan-form input[name=include_mapping]').count() >= 2, 'value mappings not offered');
    });
    await step(`${tag}: the plan shows its join path as a diagram (table, key, table)`, async () => {
      const li = page.locator('#plan-form .joinpath li').first();
      must(await li.isVisible(), 'no join diagram');
      must(await li.locator('.jt').count() === 2 && (await li.locator('.jk').textContent()).includes('caseid'),
        await li.textContent());
    });
    await step(`${tag}: exactly one primary button on the plan pause`, async () => {
      const n = await page.locator('#confirm .primary').count();
      must(n === 1, `${n} primary buttons`);
    });
    await step(`${tag}: the inspector step says in words which tables and columns it found and why`, async () => {
      const li = page.locator('#steps li[data-name=inspector]');
      const text = await li.textContent();
      must(text.includes(SAY[lang].found), 'no summary sentence');
      must(await li.locator('.found li .why').count() >= 3, 'no reasons');
      must(text.includes(SAY[lang].mapped) && text.includes("clinical_data_table.sex = 'M'"), 'no value mapping in words');
      must(text.includes(SAY[lang].joins) && await li.locator('.joinpath li').count() >= 1, 'no join path');
      must(!/\bok\b/.test(await li.locator('.badge').textContent()) || lang === 'en', 'status not translated');
      must((await li.locator('.badge').textContent()).trim() === SAY[lang].ok, 'status badge: ' + await li.locator('.badge').textContent());
    });
    await step(`${tag}: the raw JSON is behind a toggle, closed until asked`, async () => {
      const d = page.locator('#steps li[data-name=inspector] details.raw');
      must((await d.locator('summary').textContent()).trim() === SAY[lang].json, await d.locator('summary').textContent());
      must(!(await d.locator('pre.json').isVisible()), 'JSON visible before the toggle');
      await d.locator('summary').click();
      must(await d.locator('pre.json').isVisible(), 'JSON not shown after the toggle');
      must((await d.locator('pre.json').textContent()).includes('"value_mappings"'), 'not the raw record');
      await d.locator('summary').click();
    });
    await shot(page, `steps-plan-${lang}-${vw}`);
    if (vw === '390') await step(`${tag}: the plan pause fits 390 px (no sideways scroll)`, async () => {
      const o = await overflow(page); must(o <= 1, `overflow ${o}px`);
    });

    // ---- untick one table: it is removed; the SQL pause follows ----
    await step(`${tag}: unticking a table removes it; the SQL then waits with one primary button`, async () => {
      const last = page.locator('#plan-form input[name=include_table]').last();
      await last.uncheck();
      await Promise.all([page.waitForNavigation(), page.click('#plan-form button.primary')]);
      must(await page.locator('li.step-human[data-name=plan_edit]').count() === 1, 'plan edit not recorded');
      must(await page.isVisible('#edit-sql'), 'no SQL box');
      const n = await page.locator('#confirm .primary').count();
      must(n === 1, `${n} primary buttons on the SQL pause`);
    });
    await shot(page, `steps-sql-${lang}-${vw}`);

    // ---- a refused edit keeps the text, says why at the box, uses no attempt ----
    let attemptBefore = '';
    await step(`${tag}: an edit to DELETE is refused: the box keeps the DELETE, the reason is beside it, no attempt used`, async () => {
      attemptBefore = (await page.textContent('#confirm .attempt-now')).trim();
      const id = page.url().match(/\/runs\/(\d+)/)[1];
      await page.fill('#edit-sql', 'DELETE FROM lab_data_table');
      await Promise.all([page.waitForNavigation(), page.click('#sql-form button.primary')]);
      must(page.url().includes(`/runs/${id}`), 'left the run');
      must(await page.getAttribute('#run', 'data-status') === 'paused', 'the run did not stay paused');
      must((await page.inputValue('#edit-sql')).includes('DELETE FROM lab_data_table'), 'box reset to: ' + await page.inputValue('#edit-sql'));
      must(await page.getAttribute('#edit-sql', 'aria-describedby') === 'edit-sql-reason', 'box not tied to the reason');
      const why = await page.textContent('#edit-sql-reason');
      must(why.includes(SAY[lang].refused) && why.includes('DELETE'), 'reason: ' + why);
      must(why.includes(SAY[lang].noAttempt), 'no word on attempts: ' + why);
      must((await page.textContent('#confirm .attempt-now')).trim() === attemptBefore, 'attempt count changed');
      must(await page.locator('#confirm .primary').count() === 1, 'primary buttons after the refusal');
      must(await page.isVisible('#sql-form button[value=approve]'), 'no way back to the proposed SQL');
    });
    await shot(page, `steps-refused-${lang}-${vw}`);
    if (vw === '390') await step(`${tag}: the refused edit fits 390 px`, async () => {
      const o = await overflow(page); must(o <= 1, `overflow ${o}px`);
    });

    // ---- a valid edit (a UNION) runs; no false JOIN warning ----
    await step(`${tag}: a valid UNION edit runs, the run finishes, no JOIN warning`, async () => {
      await page.fill('#edit-sql', UNION_SQL);
      await Promise.all([page.waitForNavigation(), page.click('#sql-form button.primary')]);
      must(await page.getAttribute('#run', 'data-status') === 'ok', 'status ' + await page.getAttribute('#run', 'data-status'));
      must(await page.locator('li.step-human[data-name=edit]').count() === 2, 'the refused and the valid edit are not both recorded');
      must(await page.locator('li.step-refused').count() === 1, 'refused edit not marked in the step list');
      const warnings = await page.locator('#steps .finding').allTextContents();
      must(!warnings.some((w) => /JOIN/.test(w)), 'false JOIN warning: ' + warnings.join(' | '));
      must(await page.locator('table.data tbody tr').count() === 2, 'UNION rows missing');
      const ex = await page.textContent('#steps li[data-name=executor]');
      must(/2/.test(ex) && ex.length > 0, 'executor step says nothing');
    });
    await step(`${tag}: every step label and status is in ${lang} (no raw names)`, async () => {
      const labels = await page.locator('#steps .step-head strong').allTextContents();
      must(labels.every((l) => !/^[a-z_]+$/.test(l.trim())), 'raw label: ' + labels.join(', '));
      const badges = (await page.locator('#steps .step-head .badge').allTextContents()).map((b) => b.trim());
      must(badges.every((b) => !['ok', 'error', 'degraded'].includes(b) || lang === 'en'), 'raw status: ' + badges.join(', '));
      if (lang === 'ko') must(badges.every((b) => !/^[a-z]+$/.test(b)), 'English status in Korean: ' + badges.join(', '));
    });
    await shot(page, `steps-done-${lang}-${vw}`);
    if (vw === '390') await step(`${tag}: the finished run with its steps fits 390 px`, async () => {
      const o = await overflow(page); must(o <= 1, `overflow ${o}px`);
    });

    // ---- ReAct: EXPLAIN findings in words, tool labels translated ----
    await step(`${tag}: a ReAct run shows its EXPLAIN step in words`, async () => {
      await page.goto(BASE + '/');
      await page.fill('#question', REACT_Q[lang]);
      await page.check('input[name=mode][value=auto]');
      await page.check('input[name=kind][value=react]');
      await Promise.all([page.waitForURL(/\/runs\/\d+$/, { timeout: T }), page.click('#ask button[type=submit]')]);
      const ex = page.locator('#steps li[data-name=explain]').first();
      must(await ex.count() === 1, 'no explain step');
      must((await ex.textContent()).includes(SAY[lang].explain), 'EXPLAIN not in words: ' + await ex.textContent());
      const labels = await page.locator('#steps .step-head strong').allTextContents();
      must(labels.every((l) => !/^[a-z_]+$/.test(l.trim())), 'raw label: ' + labels.join(', '));
    });
    await shot(page, `steps-react-${lang}-${vw}`);
    await ctx.close();
  }
}
await browser.close();
finish();
