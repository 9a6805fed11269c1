#!/usr/bin/env node
// Posts the release diff on the pull request a GitHub Actions run is for, as one comment that each
// push updates (found by its first line), with the job's own token: the review job of
// deploy/ci/github-release.yml runs it, with `pull-requests: write` in that job only.
//
//   GITHUB_TOKEN=… node pull-request-comment.mjs diff.md
//
// It reads what GitHub sets in a job: GITHUB_API_URL, GITHUB_REPOSITORY and GITHUB_EVENT_PATH (the
// pull request's number); the token comes from the environment, never an argument.
import { readFileSync } from 'node:fs';

/** The first line of the comment: how a later push finds it to update it. */
const MARKER = '<!-- tariff diff: updated on each push -->';
/** A GitHub comment's limit, in characters; `tariff diff --format markdown` keeps within it by default. */
const COMMENT_LIMIT = 65_536;
/** Pages of comments looked through for the marker, 100 each: bounded. */
const MAX_PAGES = 30;

function fail(message) {
  process.stderr.write(`pull-request-comment: ${message}\n`);
  process.exit(1);
}

const file = process.argv[2];
if (!file) fail('usage: pull-request-comment.mjs <diff.md>');
const { GITHUB_TOKEN: token, GITHUB_API_URL: api, GITHUB_REPOSITORY: repository, GITHUB_EVENT_PATH: eventPath } = process.env;
if (!token) fail('GITHUB_TOKEN is not set: give the step `env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}`');
if (!api || !repository || !eventPath)
  fail('GITHUB_API_URL, GITHUB_REPOSITORY and GITHUB_EVENT_PATH are not set: run it in a GitHub Actions job');
const number = JSON.parse(readFileSync(eventPath, 'utf8')).pull_request?.number;
if (!Number.isInteger(number)) fail("the event is not a pull request: run the step only `if: github.event_name == 'pull_request'`");

const body = `${MARKER}\n${readFileSync(file, 'utf8')}`;
if (body.length > COMMENT_LIMIT)
  fail(`${file} has ${body.length} characters with its marker, over a comment's ${COMMENT_LIMIT}: make it with --max-chars`);

async function call(method, path, payload) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token}`,
      'x-github-api-version': '2022-11-28',
      ...(payload ? { 'content-type': 'application/json' } : {}),
    },
    body: payload ? JSON.stringify(payload) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) fail(`${method} ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return response.json();
}

let existing = null;
for (let page = 1; page <= MAX_PAGES && !existing; page += 1) {
  const comments = await call('GET', `/repos/${repository}/issues/${number}/comments?per_page=100&page=${page}`);
  existing = comments.find((comment) => typeof comment.body === 'string' && comment.body.startsWith(MARKER)) ?? null;
  if (comments.length < 100) break;
}
const comment = existing
  ? await call('PATCH', `/repos/${repository}/issues/comments/${existing.id}`, { body })
  : await call('POST', `/repos/${repository}/issues/${number}/comments`, { body });
process.stdout.write(`${existing ? 'updated' : 'posted'} the diff on pull request #${number}: ${comment.html_url ?? comment.id}\n`);
