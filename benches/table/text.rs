//! The generators' texts: a fixed-seed PRNG, and code, build output, logs and prose drawn
//! from the word pools below.

use std::fmt::Write as _;

use super::transcript::{CWD, TranscriptWriter};

/// A fixed-seed PRNG (splitmix64): the same files on every machine.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
    fn chars(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n).map(|_| *self.pick(alphabet) as char).collect()
    }
    pub(crate) fn hex(&mut self, n: usize) -> String {
        self.chars(b"0123456789abcdef", n)
    }
    pub(crate) fn uuid(&mut self) -> String {
        format!(
            "{}-{}-4{}-{}{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.pick(&['8', '9', 'a', 'b']),
            self.hex(3),
            self.hex(12)
        )
    }
    pub(crate) fn base62(&mut self, n: usize) -> String {
        self.chars(
            b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            n,
        )
    }
}

/// A JSON string literal.
pub(crate) fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

impl TranscriptWriter {
    pub(crate) fn file_path(&mut self) -> String {
        let dir = self.rng.pick(DIRS);
        let stem = self.rng.pick(STEMS);
        let ext = self.rng.pick(&["rs", "ts", "py", "ex", "go"]);
        format!("{CWD}/{dir}/{stem}_{}.{ext}", self.rng.range(1, 60))
    }

    /// `lines` lines of source code: quotes, backslashes, tabs, escapes, non-ASCII.
    pub(crate) fn code(&mut self, lines: usize) -> String {
        let mut out = String::new();
        for _ in 0..lines {
            let line = self.rng.pick(CODE);
            let n = self.rng.range(0, 999).to_string();
            out.push_str(&line.replace("{n}", &n));
            out.push('\n');
        }
        out
    }

    pub(crate) fn code_between(&mut self, lo: u64, hi: u64) -> String {
        let lines = self.rng.range(lo, hi) as usize;
        self.code(lines)
    }

    /// Mostly small, sometimes larger, rarely large (70 / 25 / 5 %).
    pub(crate) fn skewed(
        &mut self,
        small: (u64, u64),
        medium: (u64, u64),
        large: (u64, u64),
    ) -> usize {
        let (lo, hi) = match self.rng.range(0, 99) {
            0..=69 => small,
            70..=94 => medium,
            _ => large,
        };
        self.rng.range(lo, hi) as usize
    }

    pub(crate) fn code_skewed(
        &mut self,
        small: (u64, u64),
        medium: (u64, u64),
        large: (u64, u64),
    ) -> String {
        let lines = self.skewed(small, medium, large);
        self.code(lines)
    }

    pub(crate) fn code_bytes(&mut self, bytes: usize) -> String {
        let mut out = String::new();
        while out.len() < bytes {
            out.push_str(&self.code(64));
        }
        out
    }

    /// Build and test output, with ANSI colours (JSON: `\u001b`).
    pub(crate) fn bash_output(&mut self, lines: usize) -> String {
        let mut out = String::new();
        for _ in 0..lines {
            let line = self.rng.pick(BUILD_OUTPUT);
            let n = self.rng.range(0, 9999).to_string();
            out.push_str(&line.replace("{n}", &n));
            out.push('\n');
        }
        out
    }

    pub(crate) fn bash_output_between(&mut self, lo: u64, hi: u64) -> String {
        let lines = self.rng.range(lo, hi) as usize;
        self.bash_output(lines)
    }

    pub(crate) fn base62_between(&mut self, lo: u64, hi: u64) -> String {
        let n = self.rng.range(lo, hi) as usize;
        self.rng.base62(n)
    }

    pub(crate) fn log(&mut self, bytes: usize) -> String {
        let mut out = String::new();
        while out.len() < bytes {
            let t = self.timestamp();
            let line = self
                .rng
                .pick(LOG_LINES)
                .replace("{n}", &self.rng.range(0, 99_999).to_string());
            writeln!(out, "{t} {line}").unwrap();
        }
        out
    }

    pub(crate) fn sentences(&mut self, pool: &[&str], lo: u64, hi: u64) -> String {
        let n = self.rng.range(lo, hi);
        (0..n)
            .map(|_| *self.rng.pick(pool))
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub(crate) fn prompt_text(&mut self) -> String {
        let mut text = self.rng.pick(PROMPTS).to_string();
        if self.rng.chance(15) {
            text += "\n\nHere is the code I mean:\n\n```\n";
            text += &self.code_between(10, 80);
            text += "```";
        }
        text
    }

    pub(crate) fn final_reply(&mut self) -> String {
        let mut reply = self.sentences(STEP_TEXTS, 1, 3);
        reply += "\n\nChanges:\n";
        for _ in 0..self.rng.range(1, 5) {
            let file = self.file_path();
            writeln!(reply, "- `{file}`: {}", self.sentences(STEP_TEXTS, 1, 1)).unwrap();
        }
        write!(
            reply,
            "\nAll {} tests pass. {}",
            self.rng.range(12, 480),
            self.sentences(FOLLOW_UPS, 1, 1)
        )
        .unwrap();
        reply
    }
}

const DIRS: &[&str] = &[
    "src/upload",
    "src/api",
    "lib/shop_web/live",
    "web/src/components",
    "tests/integration",
];
const STEMS: &[&str] = &[
    "chunk", "retry", "budget", "session", "cart", "checkout", "invoice", "router", "store",
];

const CODE: &[&str] = &[
    "pub fn upload_chunk(client: &Client, chunk: &Chunk) -> Result<(), UploadError> {",
    "    let path = format!(\"{}/chunk-{n}.bin\", dir.display());",
    "    println!(\"uploaded {} bytes\\n\", total);",
    "    const ARROW = \"\\u2192\"; // → shown in the progress line",
    "        raise ValueError(f\"bad chunk {n}: {chunk!r}\")",
    "  def handle_info({:tick, {n}}, state), do: {:noreply, state}",
    "    assert_eq!(split(\"a\\tb\"), vec![\"a\", \"b\"]);",
    "// Größe des Puffers: {n} KiB — nicht ändern",
    "    return JSON.stringify({ id: {n}, label: \"caf\\u00e9\", tags: [\"a\", \"b\"] });",
    "\tre := regexp.MustCompile(`^\\d+\\.\\d+$`)",
    "      <div class=\"badge badge-{n}\">{{ t(\"状态\") }}</div>",
    "",
    "    }",
    "}",
    "    if attempt >= self.budget.max_retries { return Err(UploadError::BudgetExhausted { attempts: {n} }); }",
    "        let delay = Duration::from_millis(200 * 2u64.pow(attempt)); // exponential backoff",
    "    #[error(\"rate limited; retry after {retry_after:?}\")]",
    "import { useEffect, useState } from \"react\";",
    "        self.assertEqual(resp.status_code, 429, msg=\"expected \\\"Too Many Requests\\\"\")",
    "    /// Returns the number of retries left in the budget ({n} by default).",
    "    match serde_json::from_str::<Value>(&line) {",
    "        Ok(v) => records.push(v),",
    "        Err(e) => eprintln!(\"skipping line {n}: {e}\"),",
    "    logger.info(\"上传完成：%d 个分块\", len(chunks))",
    "    path = os.path.join(root, \"data\", \"chunk_{n}.bin\")",
    "    await expect(page.getByRole(\"button\", { name: \"Retry\" })).toBeVisible();",
    "defmodule Shop.Checkout.Cart{n} do",
    "    windows_path = r\"C:\\Users\\dev\\shop\\chunk_{n}.bin\"",
    "        for (const [key, value] of Object.entries(headers)) { req.setHeader(key, value); }",
    "    let re = Regex::new(r\"^(\\d{8})_(\\d{6})_([0-9a-f]{8})\\.md$\").unwrap();",
];

const BUILD_OUTPUT: &[&str] = &[
    "   Compiling shop-core v0.{n}.0 (/home/dev/shop/core)",
    "test upload::tests::retry_budget_{n} ... \u{1b}[32mok\u{1b}[0m",
    "test upload::tests::honours_retry_after_{n} ... \u{1b}[32mok\u{1b}[0m",
    "\u{1b}[33mwarning\u{1b}[0m: unused variable: `attempt_{n}`",
    "  --> src/upload/chunk.rs:{n}:17",
    "   |",
    "{n} |     let attempt = 0;",
    "   |         ^^^^^^^ help: if this is intentional, prefix it with an underscore: `_attempt`",
    "  ● Uploader › retries a failed chunk ({n} ms)",
    "    Expected: \"done\"\n    Received: \"stalled\"",
    "npm WARN deprecated glob@7.2.{n}: Glob versions prior to v9 are no longer supported",
    "PASS  web/src/components/Cart.test.tsx ({n} ms)",
    "test result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.42s",
    "✓ 上传重试 ({n} ms)",
];

const LOG_LINES: &[&str] = &[
    "INFO  upload: chunk {n} sent (262144 bytes)",
    "WARN  upload: chunk {n} failed: connection reset by peer (os error 104), retrying",
    "DEBUG http: POST /v1/uploads/{n}/chunks -> 503 Service Unavailable {\"error\":\"overloaded\"}",
    "ERROR worker: task {n} panicked at 'called `Result::unwrap()` on an `Err` value: Timeout', src/upload/chunk.rs:212:41",
    "INFO  scheduler: 状态 = \"等待\" queue={n}",
    "TRACE tls: handshake with api.example.com:443 took {n} µs",
];

pub(crate) const PROMPTS: &[&str] = &[
    "The uploader gives up after the first network error. Add retries with a retry budget: at most 3 attempts per chunk, exponential backoff starting at 200 ms.",
    "Keep the public API unchanged and add tests for the new behaviour.",
    "Treat 429 as retryable but honour Retry-After, and don't count it against the budget.",
    "The checkout page flickers when the cart updates. Can you find out why and fix it?",
    "Run the whole test suite and fix whatever fails.",
    "Please refactor the session store so that it no longer holds the lock while it writes to disk.",
    "Why does `cargo clippy` complain about the new module? Fix the warnings, don't silence them.",
    "Add a `--dry-run` flag to the prune command and document it in the README.",
    "请把上传模块的重试逻辑整理一下，保持测试通过，并用中文写注释。",
    "Write an integration test for a budget exhausted in the middle of an upload.",
    "The invoice PDF has the wrong currency symbol for CHF. Fix it and add a regression test.",
    "ok, commit this with a clear message and move on to the next task",
    "アップロードのタイムアウトを30秒に延ばしてください。",
    "Continue.",
];

pub(crate) const STEP_TEXTS: &[&str] = &[
    "Let me look at the upload module first.",
    "I'll check how the chunk loop handles errors today.",
    "The retry loop spends the budget on 429 responses, which is the bug.",
    "Now I'll run the tests to see where we stand.",
    "The failure comes from a race between the cart update and the re-render.",
    "I decided to keep the budget in a separate `RetryBudget` type because the loop and the tests both inspect it.",
    "That test now passes; two more to go.",
    "The lock is held across the `fs::write`, so every reader waits for the disk.",
    "I'll move the write out of the critical section and keep an in-memory copy.",
    "Clippy flags a needless borrow and a manual `is_some_and`; both are real.",
];

pub(crate) const THOUGHTS: &[&str] = &[
    "The user wants retries but the budget must not count 429s.",
    "I should check whether the tests mock the clock or sleep for real.",
    "If I change the signature the public API changes, which the user ruled out.",
    "The flicker could be the key prop on the list items being the index.",
    "Let me think about where the lock is taken and released.",
];

const FOLLOW_UPS: &[&str] = &[
    "Next I'd document the retry behaviour in the README.",
    "Shall I also add the edge-case test for a budget exhausted mid-upload?",
    "Remaining: the migration for the old session files.",
    "Want me to commit this?",
];

pub(crate) const TASKS: &[(&str, &str)] = &[
    ("Add RetryBudget type", "Adding RetryBudget type"),
    (
        "Retry failed chunks with exponential backoff",
        "Retrying failed chunks",
    ),
    ("Add tests for retries and the budget", "Adding retry tests"),
    (
        "Document the retry behaviour in README",
        "Documenting retries",
    ),
    ("Fix the cart flicker", "Fixing the cart flicker"),
    (
        "Move the disk write out of the lock",
        "Moving the disk write",
    ),
    (
        "Fix clippy warnings in the session module",
        "Fixing clippy warnings",
    ),
];

pub(crate) const COMMANDS: &[&str] = &[
    "cargo test --workspace",
    "cargo clippy --all-targets -- -D warnings",
    "npm test -- --runInBand",
    "mix test test/shop_web/live/cart_live_test.exs",
    "git status && git diff --stat",
    "pytest -x tests/integration",
];
