// release.mjs: downloads marked for release (issue 16 item 3) on the run page, in ko and en, at 390 px and desktop.
// On a database without access levels the section says what is missing and offers no file (a release reads through
// the limited level's views). With levels set up (for this test only, removed at the end): a grouped result offers
// them under "For release" with k in the help text; the file is named _release and its provenance says for_release
// with k; a row-level result offers none, and asking anyway is refused with the reason.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  ok, step, must, shot, requireEnv, launch, context, signIn, setLang, overflow, ask, finish,
  BASE, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, DL, TOP,
} from './lib.mjs';

requireEnv();
const ASKQL = process.env.ASKQL || `${TOP}/bin/askql`;
const sh = (cmd, args, db) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const psql = (db, sql) => sh('psql', ['-X', '-q', '-tA', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', sql]);
// levels on the demo target for this test: the superuser of the test stack creates the roles
function levelsUp() {
  // the views and grants are made as the target's indexing role: it needs a schema of its own in the
  // database and the right to pass SELECT on (the owner's, here the stack's superuser's)
  psql('demo', 'GRANT CREATE ON DATABASE demo TO askql_app; GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_app WITH GRANT OPTION');
  sh(ASKQL, ['target', 'levels', 'demo', '--as', `host=${process.env.PGHOST} port=${process.env.PGPORT} dbname=demo user=${process.env.PGUSER}`]);
}
function levelsDown() {
  const roles = ['identified', 'limited', 'aggregate'].map((l) => `askql_demo_${l}`);
  try { psql('askql', "DELETE FROM askql.target_levels WHERE target = 'demo'"); } catch (e) { /* best effort */ }
  try { psql('demo', `DROP SCHEMA IF EXISTS askql_limited CASCADE; DROP OWNED BY ${roles.join(', ')}`); } catch (e) { /* none */ }
  for (const r of roles) { try { psql('postgres', `DROP ROLE IF EXISTS ${r}`); } catch (e) { /* best effort */ } }
  try {
    psql('demo', 'REVOKE GRANT OPTION FOR SELECT ON ALL TABLES IN SCHEMA public FROM askql_app CASCADE; REVOKE CREATE ON DATABASE demo FROM askql_app');
  } catch (e) { /* best effort */ }
}

const Q = {
  group: { ko: '진료과별 환자 수', en: 'number of patients by department' },
  rows: { ko: '수술 목록', en: 'list all cases' },
};
const W = {
  ko: { title: '외부 반출용', help: /11명 미만인 그룹은 데이터베이스가 모두 빼고.*5의 배수로 반올림/, refused: /반출용으로 내려받을 수 없습니다/ },
  en: { title: 'For release', help: /fewer than 11 patients left out by the database, and every count rounded to a multiple of 5/, refused: /cannot be exported for release/ },
};

const browser = await launch();
try {
  levelsDown();   // a run before that died half-way
  await step('without access levels the section says what is missing and offers no file', async () => {
    const ctx = await context(browser, PHONE);
    const page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
    await setLang(page, 'ko');
    await ask(page, Q.group.ko, 'auto');
    const rel = page.locator('details#release');
    must(await rel.count() === 1, 'no release section');
    await rel.locator('summary').click();
    const note = (await page.locator('#release-not-ready').textContent()).trim();
    must(/접근 등급이 아직 설정되지 않았습니다/.test(note) && /askql target levels demo$/.test(note), 'note: ' + note);
    must(await rel.locator('a[href*="release=1"]').count() === 0, 'release links without levels');
    must(await overflow(page) <= 1, `sideways overflow ${await overflow(page)} px`);
    await shot(page, 'release-not-ready-ko-390');
    await ctx.close();
  });
  levelsUp();
  for (const [vp, vpName] of [[DESKTOP, 'desktop'], [PHONE, '390']]) {
    const ctx = await context(browser, vp);
    const page = await signIn(ctx, ADMIN_USER, ADMIN_PASS);
    for (const lang of ['ko', 'en']) {
      const tag = `${lang}-${vpName}`;
      await page.goto(BASE + '/');   // not the refusal page: the language switch returns to where it was
      await setLang(page, lang);
      let grouped = 0, rows = 0;
      await step(`${tag}: a grouped result offers downloads for release, with k said`, async () => {
        grouped = await ask(page, Q.group[lang], 'auto');
        must(await page.getAttribute('#run', 'data-status') === 'ok', 'run status: ' + psql('askql', `SELECT status || ' ' || coalesce(error, '') FROM askql.runs WHERE id = ${grouped}`));
        const rel = page.locator('details#release');
        must(await rel.count() === 1, 'no release section');
        must((await rel.locator('summary').textContent()).trim() === W[lang].title, 'summary text');
        await rel.locator('summary').click();
        must(W[lang].help.test(await rel.locator('p').textContent()), 'help: ' + await rel.locator('p').textContent());
        must(await rel.locator('a[href$="format=csv&release=1"]').isVisible(), 'csv link not visible once opened');
        must(await overflow(page) <= 1, `sideways overflow ${await overflow(page)} px`);
        await shot(page, `release-offer-${tag}`);
      });
      await step(`${tag}: the release zip is named _release and its provenance says for_release with k and the rounding`, async () => {
        const link = page.locator('details#release a[href$="format=zip&release=1"]');
        const [dl] = await Promise.all([page.waitForEvent('download'), link.click()]);
        must(/^extraction_\d{8}_\d{6}_release\.zip$/.test(dl.suggestedFilename()), 'file name ' + dl.suggestedFilename());
        const file = path.join(DL, `release-${tag}.zip`);
        await dl.saveAs(file);
        const p = JSON.parse(execFileSync('unzip', ['-p', file, 'provenance.json']).toString());
        must(p.provenance.for_release === true && p.provenance.suppress_k === 11 && p.provenance.release_round === 5, 'provenance ' + JSON.stringify(p.provenance));
        must(p.provenance.run_id === grouped && p.summary.small_groups_left_out_under === 11 && !('suppressed_groups' in p.summary), 'summary ' + JSON.stringify(p.summary));
        fs.rmSync(file, { force: true });
      });
      await step(`${tag}: a row-level result offers none, and a release download of it is refused with the reason`, async () => {
        rows = await ask(page, Q.rows[lang], 'auto');
        must(await page.getAttribute('#run', 'data-status') === 'ok', 'run status');
        must(await page.locator('details#release').count() === 0, 'a release section on a row-level result');
        must(await page.locator('.downloads a[href$="format=csv"]').count() === 1, 'the plain downloads are gone');
        const resp = await page.goto(`${BASE}/runs/${rows}/download?format=csv&release=1`);
        must(resp.status() === 422, 'status ' + resp.status());
        const body = await page.locator('main').textContent();
        must(W[lang].refused.test(body) && /only aggregate results may be read|집계 결과만 읽을 수 있습니다/.test(body), 'refusal: ' + body.slice(0, 300));
        must(await overflow(page) <= 1, `sideways overflow ${await overflow(page)} px`);
        await shot(page, `release-refused-${tag}`);
      });
    }
    await ctx.close();
  }
} catch (e) {
  ok(false, 'release walk', e.stack + String(e.stderr || ''));
} finally {
  levelsDown();
  await browser.close();
}
finish();
