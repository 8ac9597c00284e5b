// lib.mjs: what every browser test shares: TAP lines, Chromium launch, sign-in, language switch, phone/desktop
// contexts, screenshots under build/screenshots. Not a test itself: tests/run.sh skips it.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BASE = process.env.BASE_URL;
export const ADMIN_USER = process.env.ADMIN_USER;
export const ADMIN_PASS = process.env.ADMIN_PASS;
export const TOP = process.env.TOP || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SHOTS = path.join(TOP, 'build/screenshots');
export const DL = path.join(TOP, 'build/downloads');
export const T = 60000;
// the two window sizes every page is walked at: a phone (390 px, as issue 15 asks) and a desktop
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };
export const LANGS = ['ko', 'en'];

let n = 0, failed = 0;

// ok: one TAP line; why (on failure) becomes a comment line
export function ok(cond, desc, why) {
  n++;
  if (cond) console.log(`ok ${n} - ${desc}`);
  else {
    failed++;
    console.log(`not ok ${n} - ${desc}`);
    if (why) console.log(`# ${String(why).split('\n').slice(0, 3).join('\n# ')}`);
  }
  return cond;
}

// step: run fn as one test; an exception fails that test with its message and the walk goes on
export async function step(desc, fn) {
  try { const r = await fn(); ok(r !== false, desc); }
  catch (e) { ok(false, desc, e.message); }
}

export function must(cond, msg) { if (!cond) throw new Error(msg); }

// shot: full-page screenshot build/screenshots/<name>.png (best effort: a failed shot is not a failed test)
export async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  try { await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true }); } catch (e) { /* best effort */ }
}

// requireEnv: exit with a failed TAP line when the stack's variables are missing
export function requireEnv() {
  if (!BASE || !ADMIN_USER || !ADMIN_PASS) {
    console.log('not ok 1 - BASE_URL, ADMIN_USER and ADMIN_PASS must be set (run through make test)');
    process.exit(1);
  }
}

export async function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

// context: a browser context at a viewport (PHONE or DESKTOP) that accepts downloads
export async function context(browser, viewport) {
  fs.mkdirSync(DL, { recursive: true });
  return browser.newContext({ viewport, acceptDownloads: true });
}

// signIn: a new page of ctx signed in as user; the start page is shown
export async function signIn(ctx, user, pass) {
  const page = await ctx.newPage();
  page.setDefaultTimeout(T);
  await page.goto(BASE + '/signin');
  await page.fill('#name', user);
  await page.fill('#password', pass);
  await Promise.all([page.waitForNavigation(), page.click('form[action="/signin"] button[type=submit]')]);
  return page;
}

// addUser: create an account with bin/askql (the password through a private file, never argv); returns
// { user, pass }
export function addUser(user, role, pass) {
  const pwfile = path.join(os.tmpdir(), `${user}.pw`);
  fs.writeFileSync(pwfile, pass + '\n', { mode: 0o600 });
  try { execFileSync(process.env.ASKQL, ['user', 'add', user, role, '--password-file', pwfile], { stdio: 'ignore' }); }
  finally { fs.rmSync(pwfile, { force: true }); }
  return { user, pass };
}

// setLang: switch the signed-in user's interface to lang ('ko' or 'en') with the header switch, if not already
export async function setLang(page, lang) {
  if (await page.getAttribute('html', 'lang') === lang) return;
  await Promise.all([page.waitForNavigation(), page.click(`header form[action="/lang"] button[value=${lang}]`)]);
  must(await page.getAttribute('html', 'lang') === lang, `language did not switch to ${lang}`);
}

// overflow: how many CSS pixels the page is wider than the window (0 when nothing scrolls sideways)
export async function overflow(page) {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));
}

export const runId = (page) => Number((page.url().match(/\/runs\/(\d+)/) || [])[1] || 0);

// ask: ask question in mode ('auto' or 'step') from the start page; returns the run id the browser lands on
export async function ask(page, question, mode = 'auto') {
  await page.goto(BASE + '/');
  await page.fill('#question', question);
  await page.check(`input[name=mode][value=${mode}]`);
  await Promise.all([page.waitForURL(/\/runs\/\d+$/, { timeout: T }), page.click('#ask button[type=submit]')]);
  return runId(page);
}

// finish: print the TAP plan and exit non-zero when a test failed
export function finish() {
  console.log(`1..${n}`);
  process.exit(failed ? 1 : 0);
}
