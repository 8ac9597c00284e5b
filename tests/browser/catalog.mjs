// catalog.mjs: Admin -> Catalog as a browsable model, in headless Chromium, in Korean and English, at 390 px
// and on a desktop: target -> tables -> a table's columns -> a column's values; a synonym, a description and
// a value mapping each added, edited and removed through the page's forms, with the outcome read on the
// page; an analyst is refused. Screenshots build/screenshots/catalog-<what>-<lang>-<width>.png.
import { execFileSync } from 'node:child_process';
import { BASE, TOP, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, LANGS, ok, step, must, shot, requireEnv, launch, context,
         signIn, setLang, overflow, addUser, finish } from './lib.mjs';

requireEnv();
const browser = await launch();
const stamp = Date.now().toString(36);
const words = [];   // every word this walk added, for the clean-up

// texts a user reads, per language (the i18n strings of conf/i18n/*.catalog.json)
const TXT = {
  ko: { tables: '테이블', columns: '열', saved: '저장했습니다', removed: '삭제했습니다', rows: '행 수', samples: '예시 값',
        patient: '환자', caseEnt: '케이스(수술)', edit: '수정', editDesc: '설명 편집' },
  en: { tables: 'Tables', columns: 'Columns', saved: 'Saved', removed: 'Removed', rows: 'Rows', samples: 'Sample values',
        patient: 'patient', caseEnt: 'case', edit: 'Edit', editDesc: 'Edit description' },
};
const DEMO_TABLES = ['clinical_data_table', 'diagnosis_table', 'lab_data_table', 'medication_data_table', 'vital_data_table'];

// submit: click a button that posts a form, wait for the page it leads to
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

for (const vp of [PHONE, DESKTOP]) {
  const ctx = await context(browser, vp);
  let page;
  await step(`${vp.width}px: admin signs in`, async () => { page = await signIn(ctx, ADMIN_USER, ADMIN_PASS); });
  for (const lang of LANGS) {
    const t = TXT[lang], tag = `${lang}-${vp.width}`;
    const w = `bw${lang}${vp.width}${stamp}`;   // this walk's own words
    words.push(w);

    await step(`${tag}: the catalog lists the demo's tables in order, with row and column counts, in ${lang}`, async () => {
      await setLang(page, lang);
      await page.goto(BASE + '/admin/catalog');
      must((await page.textContent('#tables h2')).trim() === t.tables, 'heading ' + await page.textContent('#tables h2'));
      const names = await page.$$eval('#tables li[data-table]', (ls) => ls.map((l) => l.dataset.table));
      must(JSON.stringify(names) === JSON.stringify(DEMO_TABLES), 'tables ' + names.join(','));
      const first = page.locator('#tables li[data-table=clinical_data_table]');
      must((await first.locator('.rows').textContent()) === '6,388', 'row count ' + await first.locator('.rows').textContent());
      must((await first.locator('.ncols').textContent()) === '24', 'columns ' + await first.locator('.ncols').textContent());
      must((await first.textContent()).includes(t.rows), 'no row count label');
      must(!(await page.content()).includes('cat_columns'), 'internal tables shown');
      await noOverflow(page, vp, 'tables');
      await shot(page, `catalog-tables-${tag}`);
    });

    await step(`${tag}: a table shows its columns with types and which identify a patient or a case`, async () => {
      await submit(page, page.locator('#tables li[data-table=clinical_data_table] a.cat-name'));
      must((await page.textContent('#columns h2')).trim() === t.columns, 'columns heading');
      const cols = await page.$$eval('#columns li[data-column]', (ls) => ls.map((l) => l.dataset.column));
      must(cols[0] === 'caseid' && cols[1] === 'subjectid' && cols.includes('age'), 'columns ' + cols.slice(0, 4).join(','));
      must((await page.locator('li[data-column=subjectid] .cat-ent').textContent()).includes(t.patient), 'subjectid not a patient');
      must((await page.locator('li[data-column=caseid] .cat-ent').textContent()).includes(t.caseEnt), 'caseid not a case');
      must(await page.locator('li[data-column=age] .cat-ent').count() === 0, 'age marked as an identifier');
      await noOverflow(page, vp, 'table');
      await shot(page, `catalog-table-${tag}`);
    });

    await step(`${tag}: a column shows its sample values and value mappings`, async () => {
      await page.goto(BASE + '/admin/catalog?target=demo&table=lab_data_table');
      await submit(page, page.locator('#columns li[data-column=name] a.cat-name'));
      must((await page.textContent('#column h2')).includes('lab_data_table.name'), 'column heading');
      const samples = await page.$$eval('#samples code', (cs) => cs.map((c) => c.textContent));
      must(samples.includes('k') && samples.includes('lac'), 'samples ' + samples.join(','));
      must(await page.locator('#mappings li[data-phrase="칼륨"][data-value=k]').count() === 1, 'mapping 칼륨 -> k missing');
      await noOverflow(page, vp, 'column');
      await shot(page, `catalog-column-${tag}`);
    });

    await step(`${tag}: add, edit and remove a synonym`, async () => {
      const add = page.locator('#column form.add-synonym');
      await add.locator('input[name=phrase]').fill(w);
      await submit(page, add.locator('button'));
      must((await status(page)).includes(t.saved), 'add: ' + await status(page));
      let chip = page.locator(`#column .synonyms li[data-phrase="${w}"]`);
      must(await chip.count() === 1, 'added synonym not listed');
      await chip.locator('summary').click();
      must((await chip.locator('summary').textContent()).trim() === t.edit, 'edit label');
      await chip.locator('.cat-edit input[name=phrase]').fill(w + 'e');
      await noOverflow(page, vp, 'synonym edit form');
      await shot(page, `catalog-synonym-edit-${tag}`);
      await submit(page, chip.locator('button[value=syn_edit]'));
      must((await status(page)).includes(t.saved), 'edit: ' + await status(page));
      must(await page.locator(`#column .synonyms li[data-phrase="${w}"]`).count() === 0, 'old synonym still listed');
      chip = page.locator(`#column .synonyms li[data-phrase="${w}e"]`);
      must(await chip.count() === 1, 'edited synonym not listed');
      await submit(page, chip.locator('button[value=syn_remove]'));
      must((await status(page)).includes(t.removed), 'remove: ' + await status(page));
      must(await page.locator(`#column .synonyms li[data-phrase="${w}e"]`).count() === 0, 'removed synonym still listed');
      await noOverflow(page, vp, 'after synonym edits');
    });

    await step(`${tag}: add, edit and remove a description in ${lang}`, async () => {
      const form = page.locator(`#column form.desc-${lang}`);
      await page.locator('#column .desc-edit summary').click();
      must((await page.locator('#column .desc-edit summary').textContent()).trim() === t.editDesc, 'edit description label');
      await form.locator('textarea').fill(`${w} <i>desc</i>`);
      await noOverflow(page, vp, 'description form');
      await shot(page, `catalog-description-edit-${tag}`);
      await submit(page, form.locator('button[value=desc_set]'));
      must((await status(page)).includes(t.saved), 'set: ' + await status(page));
      // shown as text (escaped), in the page's language, without the other-language mark
      const shown = page.locator('#column .cat-descs > p.cat-desc');
      must((await shown.textContent()).trim() === `${w} <i>desc</i>`, 'shown: ' + await shown.textContent());
      must(await shown.locator('i').count() === 0 && await shown.locator('.badge').count() === 0, 'not escaped or marked');
      await page.locator('#column .desc-edit summary').click();
      await form.locator('textarea').fill(`${w} edited`);
      await submit(page, form.locator('button[value=desc_set]'));
      must((await shown.textContent()).trim() === `${w} edited`, 'edited: ' + await shown.textContent());
      await page.locator('#column .desc-edit summary').click();
      await submit(page, form.locator('button[value=desc_remove]'));
      must((await status(page)).includes(t.removed), 'remove: ' + await status(page));
      must(!(await page.locator('#column .cat-descs').textContent()).includes(w), 'removed description still shown');
    });

    await step(`${tag}: add, edit and remove a value mapping`, async () => {
      const add = page.locator('#add-mapping');
      await add.locator('input[name=phrase]').fill(w + 'm');
      await add.locator('input[name=value]').fill('lac');
      await submit(page, add.locator('button'));
      must((await status(page)).includes(t.saved), 'add: ' + await status(page));
      let chip = page.locator(`#mappings li[data-phrase="${w}m"][data-value=lac]`);
      must(await chip.count() === 1, 'added mapping not listed');
      must((await chip.locator('.cat-map').textContent()).replace(/\s+/g, ' ').trim() === `${w}m → lac`, 'mapping text');
      await chip.locator('summary').click();
      await chip.locator('.cat-edit input[name=value]').fill('k');
      await noOverflow(page, vp, 'mapping edit form');
      await shot(page, `catalog-mapping-edit-${tag}`);
      await submit(page, chip.locator('button[value=map_edit]'));
      must(await page.locator(`#mappings li[data-phrase="${w}m"][data-value=lac]`).count() === 0, 'old mapping still listed');
      chip = page.locator(`#mappings li[data-phrase="${w}m"][data-value=k]`);
      must(await chip.count() === 1, 'edited mapping not listed');
      await submit(page, chip.locator('button[value=map_remove]'));
      must((await status(page)).includes(t.removed), 'remove: ' + await status(page));
      must(await page.locator(`#mappings li[data-phrase="${w}m"]`).count() === 0, 'removed mapping still listed');
      await noOverflow(page, vp, 'after mapping edits');
      await shot(page, `catalog-column-edited-${tag}`);
    });

    await step(`${tag}: a refused mapping (no such stored value) says why and adds nothing`, async () => {
      const add = page.locator('#add-mapping');
      await add.locator('input[name=phrase]').fill(w + 'x');
      await add.locator('input[name=value]').fill('no-such-value');
      await submit(page, add.locator('button'));
      must(await page.locator('p.alert[role=status]').count() === 1, 'no refusal shown');
      must(await page.locator(`#mappings li[data-phrase="${w}x"]`).count() === 0, 'refused mapping listed');
    });
  }
  await ctx.close();
}

await step('an analyst cannot reach the catalog (403)', async () => {
  const user = `catan_${stamp}`, pass = `pw-${stamp}-secret`;
  addUser(user, 'analyst', pass);
  const actx = await context(browser, DESKTOP);
  const an = await signIn(actx, user, pass);
  const r = await an.goto(BASE + '/admin/catalog');
  must(r.status() === 403, 'status ' + r.status());
  await actx.close();
});

// the walk's words leave nothing behind: its edit records go and a re-index rewrites what they touched
try {
  const like = words.map((w) => `'%${w}%'`).join(', ');
  execFileSync('psql', ['-X', '-q', '-tA', '-v', 'ON_ERROR_STOP=1', '-d', 'askql', '-c',
    `DELETE FROM askql.catalog_edits WHERE phrase LIKE ANY (ARRAY[${like}]) OR (kind = 'description' AND tbl = 'lab_data_table' AND col = 'name')`]);
  if (process.env.ASKQL) execFileSync(process.env.ASKQL, ['index', '--name', 'demo'], { stdio: 'ignore', cwd: TOP });
} catch (e) { ok(false, 'clean-up of the walk\'s edits', e.message); }
await browser.close();
finish();
