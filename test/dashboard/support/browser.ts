/**
 * A real headless Chromium (Debian's package, or CHROMIUM_PATH) driven by playwright-core, with a
 * fresh profile per launch, and pages that record everything that would show in a console:
 * console errors and warnings, uncaught page errors, failed requests and answers of 400 or more.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { projectRoot } from '../../runtimes/support/processes.ts';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the screenshots go (git-ignored). */
export const artifactsDir = join(projectRoot, 'test-artifacts', 'dashboard');

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const desktop = { width: 1280, height: 800 } as const;
export const phone = { width: 390, height: 844 } as const;

/** One line per thing a person would see in the console, with the URL it came from. */
export interface PageProblems {
  readonly lines: string[];
}

export interface RecordedPage {
  readonly page: Page;
  readonly problems: PageProblems;
}

export interface Browser {
  /** A new tab (its own sessionStorage) at the desktop size, recording problems. */
  newPage(): Promise<RecordedPage>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `No Chromium at ${chromiumPath}: install Debian's package (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  await mkdir(artifactsDir, { recursive: true });
  const profile = await mkdtemp(join(tmpdir(), 'dashboard-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: desktop,
  });
  context.setDefaultTimeout(15_000);
  return {
    async newPage() {
      const page = await context.newPage();
      const lines: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') {
          lines.push(`console ${message.type()}: ${message.text()} @ ${message.location().url}`);
        }
      });
      page.on('pageerror', (error) => lines.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) => {
        // A navigation away aborts the views' in-flight refreshes; that is not a failure.
        if (request.failure()?.errorText === 'net::ERR_ABORTED') return;
        lines.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`);
      });
      page.on('response', (response) => {
        if (response.status() >= 400) {
          lines.push(
            `answer ${response.status()}: ${response.request().method()} ${new URL(response.url()).pathname}`,
          );
        }
      });
      return { page, problems: { lines } };
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A full-page screenshot into the artifacts folder; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
