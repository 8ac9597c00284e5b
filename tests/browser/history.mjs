// history.mjs: issue 15's history, users, configuration and download-provenance items, walked in Korean and English at
// 390 px and at desktop width: table filter by prefix, delete with confirmation and undo, filters kept across verify,
// delete, undo and paging, runs without an owner labelled and hidden unless asked; users page (current role selected,
// one active toggle, duplicate refused, notices); configuration descriptions in the user's language; the zip download
// with provenance.json. Screenshots build/screenshots/history-<what>-<lang>-<width>.png.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  BASE, ADMIN_USER, ADMIN_PASS, DL, PHONE, DESKTOP, LANGS,
  ok, step, must, shot, requireEnv, launch, context, signIn, setLang, overflow, finish,
} from './lib.mjs';

requireEnv();
const sql = (q) => execFileSync('psql', ['-X', '-q', '-tA', '-d', 'askql', '-v', 'ON_ERROR_STOP=1', '-c', q]).toString().trim();
const S = Date.now().toString(36);
const browser = await launch();

// what each language shows (the interface strings a person reads)
const W = {
  en: { added: (n) => `User ${n} was added.`, exists: (n) => `A user named ${n} already exists.`, analyst: 'Analyst',
        admin: 'Administrator', active: 'Active', disabled: 'Disabled', disable: 'Disable', enable: 'Enable',
        isAnalyst: (n) => `${n} is now an analyst.`, wasDisabled: (n) => `${n} was disabled`,
        deleteQ: 'Delete this run? You can undo it for 10 minutes.', deleted: (id) => `Run #${id} was deleted.`,
        undo: 'Undo', restored: (id) => `Run #${id} was restored.`, proposed: (id) => `Run #${id} was proposed as verified`,
        noOwner: 'CLI / evaluation', showNoOwner: 'Show CLI / evaluation runs', recent: 'Deleted in the last 10 minutes',
        conf: 'seconds a deleted run can still be restored', zip: 'CSV + provenance (zip)' },
  ko: { added: (n) => `사용자 ${n}을(를) 추가했습니다.`, exists: (n) => `이름이 ${n}인 사용자가 이미 있습니다.`, analyst: '분석가',
        admin: '관리자', active: '활성', disabled: '비활성', disable: '비활성화', enable: '활성화',
        isAnalyst: (n) => `${n}의 역할을 분석가로 바꿨습니다.`, wasDisabled: (n) => `${n}을(를) 비활성화하고`,
        deleteQ: '이 실행 기록을 삭제할까요? 10분 안에는 되돌릴 수 있습니다.', deleted: (id) => `실행 #${id}을(를) 삭제했습니다.`,
        undo: '되돌리기', restored: (id) => `실행 #${id}을(를) 되살렸습니다.`, proposed: (id) => `실행 #${id}을(를) 검증 쿼리로 제안했습니다.`,
        noOwner: 'CLI / 평가', showNoOwner: 'CLI / 평가 실행도 보기', recent: '최근 10분 안에 삭제한 기록',
        conf: '삭제한 실행을 기록 페이지에서 되살릴 수 있는 시간', zip: 'CSV + 출처 정보 (zip)' },
};

// one walk per language and width; each has its own analyst and runs so the walks do not see each other
async function walk(lang, vp) {
  const tag = `${lang}-${vp.width}`;
  const w = W[lang];
  const name = `h_${lang}_${vp.width}_${S}`, pass = `pw-${S}-secret`;
  const adminCtx = await context(browser, vp), anCtx = await context(browser, vp);
  let admin, an;
  const noOverflow = async (page, what) => {
    if (vp.width === PHONE.width) {
      const o = await overflow(page);
      must(o <= 1, `${what}: ${o}px sideways overflow at 390 px`);
    }
  };
  try {
    await step(`${tag}: admin adds an analyst and is told so`, async () => {
      admin = await signIn(adminCtx, ADMIN_USER, ADMIN_PASS);
      await setLang(admin, lang);
      await admin.goto(BASE + '/admin/users');
      const form = admin.locator('form:has(input[name=action][value=add])');
      await form.locator('input[name=name]').fill(name);
      await form.locator('select[name=role]').selectOption('analyst');
      await form.locator('input[name=password]').fill(pass);
      await Promise.all([admin.waitForNavigation(), form.locator('button.primary').click()]);
      must((await admin.textContent('#users-notice')).includes(w.added(name)), 'no added notice');
      await noOverflow(admin, 'users page');
      await shot(admin, `history-users-added-${tag}`);
    });
    await step(`${tag}: adding the same name again is refused with a message and no audit entry`, async () => {
      const form = admin.locator('form:has(input[name=action][value=add])');
      await form.locator('input[name=name]').fill(name);
      await form.locator('select[name=role]').selectOption('admin');
      await form.locator('input[name=password]').fill('another-password');
      const [resp] = await Promise.all([admin.waitForNavigation(), form.locator('button.primary').click()]);
      must(resp.status() === 409, 'status ' + resp.status());
      must((await admin.textContent('#users-error')).includes(w.exists(name)), 'no refusal message');
      must(await form.locator('input[name=name]').inputValue() === name, 'name not kept');
      must(await form.locator('select[name=role]').inputValue() === 'admin', 'role not kept');
      must(sql(`SELECT count(*) FROM askql.audit WHERE action = 'user.add' AND detail->>'name' = '${name}'`) === '1', 'audit count');
      await shot(admin, `history-users-duplicate-${tag}`);
    });
    await step(`${tag}: each row's dropdown opens on its current role; one toggle with a readable status`, async () => {
      await admin.goto(BASE + '/admin/users');
      const mine = admin.locator(`tr[data-user="${ADMIN_USER}"]`);
      must((await mine.locator('td.role').textContent()).includes(w.admin), 'own role not in words');
      must(await mine.locator('select').count() === 0, 'own row has a role dropdown');
      const row = admin.locator(`tr[data-user="${name}"]`);
      must(await row.locator('select[name=role]').inputValue() === 'analyst', 'analyst row not on analyst');
      must((await row.locator('select[name=role] option:checked').textContent()) === w.analyst, 'role not in words');
      must((await row.locator('td.state .badge').textContent()) === w.active, 'status not Active');
      must(await row.locator('button[value=disable]').count() === 1 && await row.locator('button[value=enable]').count() === 0, 'two toggles');
      // an admin row (promote, then save it untouched: it stays admin)
      await row.locator('select[name=role]').selectOption('admin');
      await Promise.all([admin.waitForNavigation(), row.locator('form:has(select) button').click()]);
      const row2 = admin.locator(`tr[data-user="${name}"]`);
      must(await row2.locator('select[name=role]').inputValue() === 'admin', 'admin row not on admin');
      await Promise.all([admin.waitForNavigation(), row2.locator('form:has(select) button').click()]);
      must(sql(`SELECT role FROM askql.users WHERE name = '${name}'`) === 'admin', 'saving untouched demoted');
      const row3 = admin.locator(`tr[data-user="${name}"]`);
      await row3.locator('select[name=role]').selectOption('analyst');
      await Promise.all([admin.waitForNavigation(), row3.locator('form:has(select) button').click()]);
      must((await admin.textContent('#users-notice')).includes(w.isAnalyst(name)), 'no role notice');
      await Promise.all([admin.waitForNavigation(), admin.locator(`tr[data-user="${name}"] button[value=disable]`).click()]);
      const off = admin.locator(`tr[data-user="${name}"]`);
      must((await admin.textContent('#users-notice')).includes(w.wasDisabled(name)), 'no disabled notice');
      must((await off.locator('td.state .badge').textContent()) === w.disabled, 'status not Disabled');
      must((await off.locator('button[value=enable]').textContent()) === w.enable && await off.locator('button[value=disable]').count() === 0, 'toggle');
      await shot(admin, `history-users-toggle-${tag}`);
      await Promise.all([admin.waitForNavigation(), off.locator('button[value=enable]').click()]);
      await noOverflow(admin, 'users page');
    });
    await step(`${tag}: configuration descriptions are in the interface language`, async () => {
      await admin.goto(BASE + '/admin/config');
      must((await admin.content()).includes(w.conf), 'description missing');
      await noOverflow(admin, 'configuration page');
      await shot(admin, `history-config-${tag}`);
    });

    // the analyst's runs: 3 with a lab table, 1 vital, 27 more for a second page; one run without an owner
    const uid = sql(`SELECT id FROM askql.users WHERE name = '${name}'`);
    const mk = (uidv, q, tables) => Number(sql(`INSERT INTO askql.runs(user_id, question, status, sql, tables, row_count, columns, preview)
      VALUES (${uidv}, '${q}', 'ok', 'SELECT caseid, sex FROM clinical_data_table ORDER BY caseid LIMIT 5', '${tables}', 5,
              '[{"name":"caseid","type":"integer"},{"name":"sex","type":"text"}]', '[[1,"M"],[2,"F"]]')
      RETURNING id`).split('\n')[0]);
    for (let i = 0; i < 27; i++) mk(uid, `bulk ${i} ${S}`, '{lab_data_table}');
    const lab1 = mk(uid, `lab one ${tag} ${S}`, '{lab_data_table}');
    const lab2 = mk(uid, `lab two ${tag} ${S}`, '{public.Lab_results}');
    const vital = mk(uid, `vital ${tag} ${S}`, '{vital_data_table}');
    const cli = mk('NULL', `cli run ${tag} ${S}`, '{lab_data_table}');

    await step(`${tag}: the table filter takes the start of a name, any case ("lab", "LAB")`, async () => {
      an = await signIn(anCtx, name, pass);
      await setLang(an, lang);
      await an.goto(BASE + '/history');
      await an.fill('input[name=table]', 'LAB');
      await an.fill('input[name=q]', tag);
      await Promise.all([an.waitForNavigation(), an.click('form.filters button.primary')]);
      const hrefs = await an.locator('li.hrun a.q').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      must(hrefs.includes(`/runs/${lab1}`) && hrefs.includes(`/runs/${lab2}`), 'lab runs missing: ' + hrefs);
      must(!hrefs.includes(`/runs/${vital}`), 'vital run listed');
      await noOverflow(an, 'history');
      await shot(an, `history-filter-${tag}`);
    });
    await step(`${tag}: delete asks first, then hides the run with an undo notice, keeping the filters`, async () => {
      const li = an.locator('li.hrun', { has: an.locator(`a.q[href="/runs/${lab1}"]`) });
      must(!(await li.locator('button[value=delete]').isVisible()), 'delete without asking');
      await li.locator('details.hist-confirm summary').click();
      must((await li.locator('.hist-confirm-box p').textContent()) === w.deleteQ, 'confirmation text');
      await shot(an, `history-confirm-${tag}`);
      await Promise.all([an.waitForNavigation(), li.locator('button[value=delete]').click()]);
      must((await an.textContent('#notice p')).includes(w.deleted(lab1)), 'no deleted notice');
      must(await an.inputValue('input[name=table]') === 'LAB' && await an.inputValue('input[name=q]') === tag, 'filters lost');
      must(await an.locator(`li.hrun a.q[href="/runs/${lab1}"]`).count() === 0, 'run still listed');
      must((await an.textContent('#recently-deleted')).includes(w.recent), 'no recently deleted list');
      must((await an.goto(`${BASE}/runs/${lab1}`)).status() === 404, 'deleted run page not 404');
      await an.goBack();
      await noOverflow(an, 'history after delete');
      await shot(an, `history-deleted-${tag}`);
    });
    await step(`${tag}: undo brings it back, keeping the filters`, async () => {
      must((await an.textContent('#notice button[value=undo]')).trim() === w.undo, 'undo label');
      await Promise.all([an.waitForNavigation(), an.click('#notice button[value=undo]')]);
      must((await an.textContent('#notice p')).includes(w.restored(lab1)), 'no restored notice');
      must(await an.locator(`li.hrun a.q[href="/runs/${lab1}"]`).count() === 1, 'run not back');
      must(await an.inputValue('input[name=table]') === 'LAB', 'filters lost');
      await shot(an, `history-undone-${tag}`);
    });
    await step(`${tag}: proposing as verified from history keeps the filters`, async () => {
      const li = an.locator('li.hrun', { has: an.locator(`a.q[href="/runs/${lab2}"]`) });
      await Promise.all([an.waitForNavigation(), li.locator('button[value=verify]').click()]);
      must((await an.textContent('#notice p')).includes(w.proposed(lab2)), 'no proposal notice');
      must(await an.inputValue('input[name=table]') === 'LAB' && await an.inputValue('input[name=q]') === tag, 'filters lost');
    });
    await step(`${tag}: paging keeps the filters, and a delete on page 2 comes back to page 2`, async () => {
      await an.goto(`${BASE}/history?table=lab&q=${encodeURIComponent(S)}`);
      await Promise.all([an.waitForNavigation(), an.click('nav.pager a[href*="page=2"]')]);
      must(/page=2/.test(an.url()) && await an.inputValue('input[name=table]') === 'lab', 'page 2 lost the filter');
      const li = an.locator('li.hrun').first();
      const href = await li.locator('a.q').getAttribute('href');
      await li.locator('details.hist-confirm summary').click();
      await Promise.all([an.waitForNavigation(), li.locator('button[value=delete]').click()]);
      must(/page=2/.test(an.url()) && /table=lab/.test(an.url()), 'not back on page 2 with the filter: ' + an.url());
      must(await an.locator(`li.hrun a.q[href="${href}"]`).count() === 0, 'still listed');
      await Promise.all([an.waitForNavigation(), an.click('#notice button[value=undo]')]);
      must(await an.locator(`li.hrun a.q[href="${href}"]`).count() === 1, 'undo on page 2 failed');
      await noOverflow(an, 'history page 2');
      await shot(an, `history-page2-${tag}`);
    });
    await step(`${tag}: the admin's All users hides runs without an owner; the toggle shows them labelled`, async () => {
      await admin.goto(`${BASE}/history?all=1&q=${encodeURIComponent(tag)}`);
      must(await admin.locator(`li.hrun a.q[href="/runs/${lab1}"]`).count() === 1, 'owned run missing');
      must(await admin.locator(`li.hrun a.q[href="/runs/${cli}"]`).count() === 0, 'owner-less run shown by default');
      must((await admin.textContent('form.filters')).includes(w.showNoOwner), 'no toggle');
      await admin.check('input[name=noowner]');
      await Promise.all([admin.waitForNavigation(), admin.click('form.filters button.primary')]);
      const li = admin.locator('li.hrun', { has: admin.locator(`a.q[href="/runs/${cli}"]`) });
      must(await li.count() === 1, 'owner-less run not shown with the toggle');
      must((await li.locator('.hist-noowner').textContent()) === w.noOwner, 'label');
      await noOverflow(admin, 'admin history');
      await shot(admin, `history-noowner-${tag}`);
    });
    await step(`${tag}: the run page offers the zip with provenance.json (question, SQL, time, user, target, rows)`, async () => {
      await an.goto(`${BASE}/runs/${lab1}`);
      const link = an.locator('.downloads a[href$="format=zip"]');
      must((await link.textContent()).trim() === w.zip, 'zip label');
      await noOverflow(an, 'run page');
      await shot(an, `history-downloads-${tag}`);
      const [dl] = await Promise.all([an.waitForEvent('download'), link.click()]);
      must(/^extraction_\d{8}_\d{6}\.zip$/.test(dl.suggestedFilename()), 'file name ' + dl.suggestedFilename());
      const file = path.join(DL, `history-${tag}.zip`);
      await dl.saveAs(file);
      const list = execFileSync('unzip', ['-Z1', file]).toString().trim().split('\n');
      must(list.length === 2 && /\.csv$/.test(list[0]) && list[1] === 'provenance.json', 'entries ' + list);
      const p = JSON.parse(execFileSync('unzip', ['-p', file, 'provenance.json']).toString());
      must(p.provenance.question === `lab one ${tag} ${S}` && /clinical_data_table/.test(p.provenance.sql), 'question/sql');
      must(p.provenance.user === name && p.provenance.target === 'demo' && p.provenance.run_id === lab1, 'user/target/run');
      must(/Z$/.test(p.provenance.started_at) && p.summary.row_count === 5, 'time/rows');
      const csv = execFileSync('unzip', ['-p', file, list[0]]).toString();
      must(csv.includes('caseid,sex') && csv.trim().split('\n').length === 6, 'csv content');
      fs.rmSync(file, { force: true });
    });
  } finally {
    await adminCtx.close();
    await anCtx.close();
  }
}

try {
  for (const lang of LANGS)
    for (const vp of [PHONE, DESKTOP])
      await walk(lang, vp);
} catch (e) {
  ok(false, 'history walk aborted', e.message);
} finally {
  await browser.close();
}
finish();
