// phi.mjs: the PHI review of Admin -> Catalog in headless Chromium, in Korean and English, at 390 px and on a
// desktop: the classes counted on the table list, the review list, a direct identifier's page without stored
// values, a column corrected with a reason (notice, corrected badge on the page and in the review) and the
// correction removed again. Screenshots build/screenshots/phi-<what>-<lang>-<width>.png.
import { execFileSync } from 'node:child_process';
import { BASE, TOP, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, LANGS, ok, step, must, shot, requireEnv, launch, context,
         signIn, setLang, overflow, finish } from './lib.mjs';

requireEnv();
const stamp = Date.now().toString(36);
const DB = `phi_br_${stamp}`;

// texts a user reads, per language (conf/i18n/*.phi_page.json)
const TXT = {
  ko: { direct: '직접 식별자', quasi: '준식별자', sensitive: '민감 정보', corrected: '수정됨', saved: '저장했습니다',
        cleared: '수정을 취소했습니다', review: '개인정보 분류 검토', hidden: '저장된 값은 표시하지 않습니다' },
  en: { direct: 'direct identifier', quasi: 'quasi-identifier', sensitive: 'sensitive', corrected: 'corrected', saved: 'Saved',
        cleared: 'Correction removed', review: 'Personal information review', hidden: 'Stored values are not shown' },
};

const psql = (db, sql) => execFileSync('psql', ['-X', '-q', '-tA', '-v', 'ON_ERROR_STOP=1', '-d', db], { input: sql }).toString();

// a small clinic: a patient master with a name, a registration number and a region, admissions with dates
// of care, diagnoses with a psychiatric code
function setup() {
  psql('postgres', `CREATE DATABASE ${DB}`);
  psql(DB, `
CREATE TABLE hwanja (ptnt_no text PRIMARY KEY, ptnt_nm text, jumin_no text, sido_nm text, brth_dt date);
COMMENT ON COLUMN hwanja.ptnt_no IS '환자번호(등록번호)';
COMMENT ON COLUMN hwanja.ptnt_nm IS '환자명';
COMMENT ON COLUMN hwanja.sido_nm IS '거주지 시도';
COMMENT ON COLUMN hwanja.brth_dt IS '생년월일';
INSERT INTO hwanja VALUES ('00012345', '홍길동', '800101-1234560', '서울', '1980-01-01'),
  ('00012346', '김영희', '950715-2345678', '경기', '1995-07-15'), ('00012347', '이철수', '020301-3123456', '부산', '2002-03-01');
CREATE TABLE ipwon (ipwon_no integer PRIMARY KEY, ptnt_no text REFERENCES hwanja, ipwon_dt timestamp, ward_cd text);
COMMENT ON COLUMN ipwon.ipwon_dt IS '입원일시';
INSERT INTO ipwon SELECT g, '0001234' || (5 + g % 3), timestamp '2025-01-01' + g * interval '3 day', 'W' || (g % 3)
  FROM generate_series(1, 12) g;
CREATE TABLE jindan (jindan_seq integer PRIMARY KEY, ptnt_no text REFERENCES hwanja, sick_cd text);
COMMENT ON COLUMN jindan.sick_cd IS '상병코드(KCD)';
INSERT INTO jindan VALUES (1, '00012345', 'I10'), (2, '00012346', 'F20.0'), (3, '00012347', 'E11.9');
GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC;`);
  execFileSync(process.env.ASKQL, ['index', '--target',
    `host=${process.env.PGHOST} port=${process.env.PGPORT} dbname=${DB} user=${process.env.PGUSER || 'askql'}`], { stdio: ['ignore', 'ignore', 'pipe'], cwd: TOP });
}

function cleanup() {
  psql('askql', `DELETE FROM askql.targets WHERE name = '${DB}'; DELETE FROM askql.cat_targets WHERE name = '${DB}';
    DELETE FROM askql.cat_tables WHERE target = '${DB}'; DELETE FROM askql.phi_corrections WHERE target = '${DB}'`);
  psql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
}

async function submit(page, button) {
  await Promise.all([page.waitForNavigation(), button.click()]);
}
async function status(page) {
  return (await page.locator('p[role=status]').textContent()) || '';
}
async function noOverflow(page, vp, what) {
  if (vp !== PHONE) return;
  const o = await overflow(page);
  must(o <= 1, `${what}: page is ${o}px wider than the 390 px window`);
}
const badge = async (loc) => ((await loc.locator('.phi-badge').first().textContent()) || '').trim();

let ready = false;
await step('a small clinic target is created and indexed', async () => { setup(); ready = true; });
const browser = await launch();
for (const vp of (ready ? [PHONE, DESKTOP] : [])) {
  const ctx = await context(browser, vp);
  let page;
  await step(`${vp.width}px: admin signs in`, async () => { page = await signIn(ctx, ADMIN_USER, ADMIN_PASS); });
  for (const lang of LANGS) {
    const t = TXT[lang], tag = `${lang}-${vp.width}`;

    await step(`${tag}: the table list counts each table's direct, quasi and sensitive columns`, async () => {
      await setLang(page, lang);
      await page.goto(`${BASE}/admin/catalog?target=${DB}`);
      const hw = page.locator('#tables li[data-table=hwanja]');
      const direct = (await hw.locator('.phi-badge[data-phi=direct]').textContent()).replace(/\s+/g, ' ').trim();
      must(direct === `${t.direct} 3`, 'hwanja direct: ' + direct);
      must((await hw.locator('.phi-badge[data-phi=quasi]').textContent()).includes(t.quasi), 'hwanja quasi');
      must((await page.locator('#tables li[data-table=jindan] .phi-badge[data-phi=sensitive]').textContent()).includes(t.sensitive),
        'jindan sensitive');
      must(await page.locator('#phi-summary .phi-badge[data-phi=direct]').count() === 1, 'no summary');
      await noOverflow(page, vp, 'tables');
      await shot(page, `phi-tables-${tag}`);
    });

    await step(`${tag}: the review lists every column that is not none, with its class and evidence`, async () => {
      await submit(page, page.locator('#phi-review-link'));
      must((await page.textContent('#phi-review h2')).trim() === t.review, 'heading ' + await page.textContent('#phi-review h2'));
      const cols = await page.$$eval('#phi-review li[data-column]', (ls) => ls.map((l) => l.dataset.column));
      for (const c of ['hwanja.ptnt_nm', 'hwanja.jumin_no', 'hwanja.brth_dt', 'ipwon.ipwon_dt', 'jindan.sick_cd'])
        must(cols.includes(c), `${c} not in the review: ${cols.join(',')}`);
      must(!cols.includes('ipwon.ward_cd') && !cols.includes('jindan.jindan_seq'), 'a column of class none is listed');
      must(await badge(page.locator('#phi-review li[data-column="hwanja.jumin_no"]')) === t.direct, 'jumin_no badge');
      must((await page.locator('#phi-review li[data-column="hwanja.jumin_no"] .phi-evidence').textContent()).includes('rrn'),
        'jumin_no evidence');
      await noOverflow(page, vp, 'review');
      await shot(page, `phi-review-${tag}`);
    });

    await step(`${tag}: a direct identifier's page shows its class and evidence and no stored value`, async () => {
      await submit(page, page.locator('#phi-review li[data-column="hwanja.ptnt_nm"] a.cat-name'));
      must(await badge(page.locator('#phi .phi-now')) === t.direct, 'class');
      must((await page.textContent('#values-hidden')).includes(t.hidden), 'no note on hidden values');
      must(await page.locator('#samples, #add-mapping').count() === 0, 'samples or mapping form shown');
      must(!(await page.content()).includes('홍길동'), 'a stored name is shown');
      await noOverflow(page, vp, 'direct column');
      await shot(page, `phi-direct-${tag}`);
    });

    await step(`${tag}: correct a column with a reason: the notice, the corrected badge, the reason`, async () => {
      await page.goto(`${BASE}/admin/catalog?target=${DB}&phi=review`);
      await submit(page, page.locator('#phi-review li[data-column="ipwon.ipwon_dt"] a.cat-name'));
      must(await badge(page.locator('#phi .phi-now')) === t.quasi, 'class before');
      const form = page.locator('#phi-set');
      await form.locator('select[name=class]').selectOption('direct');
      await form.locator('textarea[name=reason]').fill(`admission times are exact here (${tag})`);
      await noOverflow(page, vp, 'correction form');
      await shot(page, `phi-column-${tag}`);
      await submit(page, form.locator('button[value=phi_set]'));
      must((await status(page)).includes(t.saved), 'notice: ' + await status(page));
      must(await badge(page.locator('#phi .phi-now')) === t.direct, 'class after');
      must((await page.locator('#phi .phi-now .phi-corrected').textContent()).trim() === t.corrected, 'no corrected badge');
      must((await page.textContent('#phi .phi-reason')).includes(`admission times are exact here (${tag})`), 'reason');
      must((await page.textContent('#phi .phi-set-by')).includes(ADMIN_USER), 'by whom');
      await noOverflow(page, vp, 'corrected column');
      await shot(page, `phi-corrected-${tag}`);
      await page.goto(`${BASE}/admin/catalog?target=${DB}&phi=review`);
      const li = page.locator('#phi-review li[data-column="ipwon.ipwon_dt"]');
      must(await badge(li) === t.direct && (await li.locator('.phi-corrected').textContent()).trim() === t.corrected,
        'the review does not show the correction');
    });

    await step(`${tag}: remove the correction with a reason: the classifier's class again`, async () => {
      await submit(page, page.locator('#phi-review li[data-column="ipwon.ipwon_dt"] a.cat-name'));
      const form = page.locator('#phi-clear');
      await form.locator('input[name=reason]').fill('checked with the ward: times are rounded');
      await submit(page, form.locator('button[value=phi_clear]'));
      must((await status(page)).includes(t.cleared), 'notice: ' + await status(page));
      must(await badge(page.locator('#phi .phi-now')) === t.quasi, 'class after clearing');
      must(await page.locator('#phi .phi-corrected, #phi-clear').count() === 0, 'still marked corrected');
      await noOverflow(page, vp, 'cleared column');
      await shot(page, `phi-cleared-${tag}`);
    });
  }
  await ctx.close();
}
await browser.close();
try { cleanup(); } catch (e) { ok(false, 'clean-up of the clinic target', e.message); }
finish();
