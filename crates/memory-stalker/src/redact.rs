//! Secret redaction (docs/design.md §8.1): applied to everything sent to a model and
//! everything written to disk. A secret becomes `[REDACTED:<kind>]`; around it, key names
//! and separators stay, so the text still says *what* was there.

use std::borrow::Cow;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::Regex;

/// One kind of secret and how to find it.
struct Rule {
    kind: &'static str,
    /// The pattern, compiled when first needed: most texts need no rule at all, and
    /// compiling all of them would cost a hook ten milliseconds before it reads a line.
    pattern: String,
    compiled: OnceLock<Regex>,
    /// Capture groups kept before the secret (the secret is the rest of the match).
    keep: usize,
    /// Extra check on the secret text, for shapes that also match ordinary words.
    accept: fn(&str) -> bool,
    /// Text the match ends with that is not part of the secret (kept).
    suffix: &'static str,
    /// The secret is a value after a name (`password=`), not found by its own shape.
    keyed: bool,
    /// Literals every match contains (in any case): each group must occur, by one of its
    /// literals. A text without them cannot hold this rule's secret.
    needs: &'static [&'static [&'static str]],
    /// The first group of `needs` names a key that the secret is assigned to: it counts
    /// only where an assignment follows it (`token = `, `"password": `), since every
    /// match has one there. Prose says "token" and "secret" often; code assigns them.
    assigned: bool,
}

fn any(_: &str) -> bool {
    true
}

/// Real keys mix letters and digits; words joined by dashes do not.
fn mixed(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Values of `password=`-style assignments that are code, not secrets.
fn assigned_secret(s: &str) -> bool {
    const NOT_SECRETS: [&str; 32] = [
        "str",
        "string",
        "int",
        "bool",
        "boolean",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "required",
        "optional",
        "any",
        "object",
        "self",
        "this",
        "input",
        "env",
        "os",
        "process",
        "config",
        "settings",
        "value",
        "values",
        "secret",
        "secrets",
        "token",
        "password",
        "redacted",
        "hidden",
        "masked",
    ];
    let first = s.chars().next().unwrap_or(' ');
    if matches!(first, '$' | '{' | '<' | '%' | '[' | '*' | '.' | '/') {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    !NOT_SECRETS.contains(&lower.as_str())
        && !lower.starts_with("process.env")
        && !lower.starts_with("os.environ")
        && !lower.starts_with("env.")
        && !lower.starts_with("self.")
        && !lower.starts_with("this.")
        && !lower.starts_with("config.")
        && !lower.starts_with("settings.")
}

/// A flag's value that is a secret: not another flag, not a variable or placeholder.
fn flag_secret(s: &str) -> bool {
    !s.starts_with('-') && assigned_secret(s.trim_end_matches(['"', '\'']))
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let r = |kind, needs, pattern: &str, keep, accept: fn(&str) -> bool| {
            let keyed = keep > 0;
            let (pattern, keep) = escaped_line_start(pattern, keep);
            Rule {
                kind,
                needs,
                assigned: false,
                keyed,
                pattern: ascii_boundaries(&pattern),
                compiled: OnceLock::new(),
                keep,
                accept,
                suffix: "",
            }
        };
        // A rule whose secret is assigned to a key (see `Rule::assigned`).
        let assigned = |kind, needs, pattern: &str, keep, accept: fn(&str) -> bool| Rule {
            assigned: true,
            ..r(kind, needs, pattern, keep, accept)
        };
        vec![
            // First: a token's signature may start like a key (`sk-…`) or look like the
            // base64 of a key's last line. A PEM body has no dots, so no token inside it.
            r(
                "jwt",
                &[&["eyJ"]],
                r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
                0,
                any,
            ),
            r(
                "private-key",
                &[&["-----BEGIN"]],
                // Without its END line (a truncated output), the key runs over the
                // base64 lines that follow (line breaks may be escaped), not further.
                r"-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----(?:[\s\S]*?-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|(?:\s*(?:\\n)?[A-Za-z0-9+/=]{16,})*)",
                0,
                any,
            ),
            r(
                "private-key",
                &[&["-----END"]],
                // The tail of a key whose BEGIN line was cut away (a head-and-tail cut
                // made elsewhere, or an output that starts mid-key).
                // Its last line may be short.
                r"(?:[A-Za-z0-9+/=]{16,}\s*(?:\\n)?\s*)+(?:[A-Za-z0-9+/=]{1,15}\s*(?:\\n)?\s*)?-----END (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----",
                0,
                any,
            ),
            r("anthropic-key", &[&["sk-ant-"]], r"\bsk-ant-[A-Za-z0-9_-]{20,}", 0, any),
            r(
                "openai-key",
                &[&["sk-"]],
                r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
                0,
                mixed,
            ),
            r(
                "github-token",
                &[&["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]],
                r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
                0,
                any,
            ),
            r("gitlab-token", &[&["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-"]], r"\bgl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,}", 0, any),
            r("slack-token", &[&["xox"]], r"\bxox[abposre]-[A-Za-z0-9-]{10,}", 0, mixed),
            r(
                "slack-webhook",
                &[&["hooks.slack.com/"]],
                r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}",
                0,
                any,
            ),
            r("stripe-key", &[&["_live_", "_test_"]], r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", 0, any),
            r("stripe-webhook-secret", &[&["whsec_"]], r"\bwhsec_[A-Za-z0-9]{20,}", 0, any),
            r("aws-access-key", &[&["AKIA", "ASIA", "ABIA", "ACCA"]], r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", 0, any),
            assigned(
                "aws-secret-key",
                &[&["aws_secret_access_key", "aws_secret_key", "secret_access_key", "secretaccesskey"]],
                r#"(?i)\b(aws_secret_access_key|aws_secret_key|secret_access_key|SecretAccessKey)(["']?[ \t]*[:=][ \t]*["']?)[A-Za-z0-9/+=]{40}"#,
                2,
                any,
            ),
            r("google-api-key", &[&["AIza"]], r"\bAIza[0-9A-Za-z_-]{35}", 0, any),
            r("google-oauth-token", &[&["ya29."]], r"\bya29\.[0-9A-Za-z_-]{20,}", 0, any),
            r("google-client-secret", &[&["GOCSPX-"]], r"\bGOCSPX-[A-Za-z0-9_-]{20,}", 0, any),
            r("npm-token", &[&["npm_"]], r"\bnpm_[A-Za-z0-9]{36}\b", 0, any),
            r("pypi-token", &[&["pypi-AgE"]], r"\bpypi-AgE[A-Za-z0-9_-]{50,}", 0, any),
            r("huggingface-token", &[&["hf_"]], r"\bhf_[A-Za-z0-9]{30,}\b", 0, mixed),
            r("sendgrid-key", &[&["SG."]], r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", 0, any),
            r("digitalocean-token", &[&["_v1_"]], r"\bdo[pro]_v1_[a-f0-9]{64}\b", 0, any),
            Rule {
                suffix: "@",
                ..r(
                    "url-credentials",
                    &[&["://"], &["@"]],
                    // The password runs to the last `@` before the host: it may hold `@`.
                    r#"\b([a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@"'<>`]+:)[^\s/?#"'<>`]+@"#,
                    1,
                    any,
                )
            },
            assigned(
                "authorization",
                &[&["authorization"]],
                r#"(?i)\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|digest)[ \t]+)[A-Za-z0-9._~+/=-]{6,}"#,
                1,
                any,
            ),
            assigned(
                "authorization",
                &[&["authorization"]],
                r#"(?i)\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?)[A-Za-z0-9._~+/=-]{16,}"#,
                1,
                mixed,
            ),
            assigned(
                "api-key",
                &[&["x-auth-token", "api-key"]],
                r#"(?i)\b((?:x-api-key|x-auth-token|api-key)["']?[ \t]*[:=][ \t]*["']?)[A-Za-z0-9._~+/=-]{8,}"#,
                1,
                any,
            ),
            assigned(
                "secret",
                &[&["_KEY", "_PASS", "_PASSPHRASE", "_CREDENTIAL", "_CREDENTIALS", "PASSPHRASE"]],
                // Environment-style names (`DB_PASS`, `SIGNING_KEY`, `PASSPHRASE`):
                // upper case only, since `sort_key = name` in code is no secret.
                r#"\b([A-Z][A-Z0-9_]*_(?:KEY|PASS|PASSPHRASE|CREDENTIALS?)|PASSPHRASE)(["']?[ \t]*[:=][ \t]*["']?)((?:[^\s"'`,;&()<>\[\]{}\\]|\\[^nrt\s"]){4,})"#,
                2,
                assigned_secret,
            ),
            r(
                "secret",
                &[&["--"], &["pass", "token", "secret", "key"]],
                // Command-line flags: `--password X`, `--db-password=X`, `--token X`.
                r#"(?i)(\s--(?:[a-z0-9]+-)*(?:password|passwd|pass|passphrase|token|secret|api-key|apikey|access-key|secret-key|private-key|client-secret)(?:=|\s+)["']?)((?:[^\s"'`\\]|\\[^nrt\s"]){3,})"#,
                1,
                flag_secret,
            ),
            r(
                "secret",
                &[&["mysql", "mariadb", "sshpass"], &["-p"]],
                // MySQL's `-pSECRET` (the password glued to the flag) and `sshpass -p`.
                r#"\b((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p["']?|sshpass\s+-p\s*["']?)((?:[^\s"'`\\]|\\[^nrt\s"])+)"#,
                1,
                flag_secret,
            ),
            r(
                "secret",
                &[&["curl", "http", "xh"], &["-u"]],
                // `curl -u user:password`, `--user user:password`: the user stays.
                r#"\b((?:curl|http|https|xh)\b[^\n|;&]*?\s(?:-u\s*|--user(?:\s+|=))["']?[^\s:"'`]*:)((?:[^\s"'`\\]|\\[^nrt\s"])+)"#,
                1,
                flag_secret,
            ),
            assigned(
                "secret",
                &[&["password", "passwd", "pwd", "secret", "token", "api_key", "apikey", "access_key", "accesskey", "private_key", "privatekey"]],
                r#"(?i)\b([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api_?key|apikey|access_?key|private_?key|client_?secret)["']?[ \t]*[:=][ \t]*["']?)((?:[^\s"'`,;&()<>\[\]{}\\]|\\[^nrt\s"]){4,})"#,
                1,
                assigned_secret,
            ),
        ]
    })
}

impl Rule {
    fn re(&self) -> &Regex {
        self.compiled.get_or_init(|| {
            // The patterns are literals of this file; the tests compile every one.
            Regex::new(&self.pattern)
                .unwrap_or_else(|e| panic!("redaction pattern {}: {e}", self.kind))
        })
    }
}

/// Word boundaries in ASCII terms: a key glued to Chinese text (`密钥sk-ant-…`) still
/// starts at a boundary, and the matcher keeps its fast automaton on non-ASCII text,
/// which Unicode boundaries would make it give up.
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

// Values stop at white space and quotes, and at an escaped line break, tab or quote
// (`\n`, `\"` in JSON text), which end a line or a string as much as real ones do.

/// A rule that starts at a word boundary also starts after an escaped line break or
/// tab (`\n` in JSON text): the `n` is a word character, so `\nsk-ant-…` has no
/// boundary before the key. The escape becomes the first kept group.
fn escaped_line_start(pattern: &str, keep: usize) -> (String, usize) {
    const ESCAPED: &str = r"((?-u:\b)|\\[nrt])";
    for flags in ["", "(?i)"] {
        if let Some(rest) = pattern.strip_prefix(&format!(r"{flags}\b")) {
            return (format!("{flags}{ESCAPED}{rest}"), keep + 1);
        }
    }
    (pattern.to_string(), keep)
}

/// The rules that can match in `text`, in order: those whose [`Rule::needs`] all occur
/// in it, found in one pass over the text for all the rules' literals at once. Most text
/// holds none, and a rule's own search (an automaton over the whole text) is never run.
fn candidates(text: &str) -> impl Iterator<Item = &'static Rule> {
    struct Prefilter {
        finder: AhoCorasick,
        /// For each literal of the finder, the (rule, group) pairs it satisfies.
        owners: Vec<Vec<(usize, usize)>>,
    }
    static PREFILTER: OnceLock<Prefilter> = OnceLock::new();
    let pre = PREFILTER.get_or_init(|| {
        let mut literals: Vec<&str> = Vec::new();
        let mut owners: Vec<Vec<(usize, usize)>> = Vec::new();
        for (r, rule) in rules().iter().enumerate() {
            for (g, group) in rule.needs.iter().enumerate() {
                for lit in group.iter() {
                    let i = literals
                        .iter()
                        .position(|l| l.eq_ignore_ascii_case(lit))
                        .unwrap_or_else(|| {
                            literals.push(lit);
                            owners.push(Vec::new());
                            literals.len() - 1
                        });
                    owners[i].push((r, g));
                }
            }
        }
        Prefilter {
            // The literals are constants of this file; the tests build this automaton.
            finder: AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&literals)
                .unwrap_or_else(|e| panic!("redaction literals: {e}")),
            owners,
        }
    });
    // Which groups of which rules occur: a bit per group (no rule has more than 8).
    let mut found = vec![0u8; rules().len()];
    for m in pre.finder.find_overlapping_iter(text) {
        for &(r, g) in &pre.owners[m.pattern().as_usize()] {
            if g == 0 && rules()[r].assigned && !assignment_at(&text.as_bytes()[m.end()..]) {
                continue;
            }
            found[r] |= 1 << g;
        }
    }
    rules()
        .iter()
        .zip(found)
        .filter(|(rule, bits)| u32::from(*bits) == (1u32 << rule.needs.len()) - 1)
        .map(|(rule, _)| rule)
}

/// Whether `rest` opens with an assignment: `["']?[ \t]*[:=]`, as the rules with an
/// [`Rule::assigned`] key require after it.
fn assignment_at(rest: &[u8]) -> bool {
    let rest = rest
        .strip_prefix(b"\"")
        .or_else(|| rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    rest.iter()
        .find(|c| !matches!(c, b' ' | b'\t'))
        .is_some_and(|c| matches!(c, b':' | b'='))
}

/// Replaces secrets in `text` with `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_mapping(text, 0, false).0
}

/// [`redact`], and where byte `pos` of `text` ended up in the result. A `pos` inside a
/// secret maps to the end of its replacement when `toward_end`, else to its start, so
/// a cut at the mapped place keeps the marker whole on the side that is shown.
fn redact_mapping(text: &str, pos: usize, toward_end: bool) -> (Cow<'_, str>, usize) {
    let mut out = Cow::Borrowed(text);
    let mut pos = pos;
    // Replacements only ever insert `[REDACTED:…]`, which no rule takes for a secret, so
    // a rule that could not match the text cannot match after them.
    for rule in candidates(text) {
        if let Some((replaced, spans)) = apply(rule, &out) {
            pos = map_position(pos, &spans, toward_end);
            out = Cow::Owned(replaced);
        }
    }
    (out, pos)
}

/// A replaced span: bytes `from` of the input became bytes `to` of the output.
struct Span {
    from: std::ops::Range<usize>,
    to: std::ops::Range<usize>,
}

/// Where input byte `pos` is in the output of one rule's pass.
fn map_position(pos: usize, spans: &[Span], toward_end: bool) -> usize {
    let mut shift: isize = 0;
    for s in spans {
        if pos <= s.from.start {
            break;
        }
        if pos < s.from.end {
            return if toward_end { s.to.end } else { s.to.start };
        }
        shift = s.to.end as isize - s.from.end as isize;
    }
    (pos as isize + shift) as usize
}

/// Whether a "value" is the name of the next secret: `password:` with nothing after it
/// takes the next line's `api_key:` for its value, and would leave that key's own
/// secret in clear.
fn swallowed_key(value: &str, after: &str) -> bool {
    let name = value
        .trim_start_matches(['\\', '"', '\''])
        .trim_end_matches(':')
        .trim_end_matches(['\\', '"', '\'']);
    let followed = value.ends_with(':')
        || after
            .trim_start_matches(['"', '\'', ' ', '\t'])
            .starts_with([':', '=']);
    let lower = name.to_ascii_lowercase();
    followed
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && [
            "password",
            "passwd",
            "pwd",
            "secret",
            "token",
            "key",
            "pass",
            "passphrase",
            "credential",
            "credentials",
            "auth",
        ]
        .iter()
        .any(|k| lower.ends_with(k))
}

/// The text with `rule`'s secrets replaced and the spans replaced, or `None` when it
/// has none.
fn apply(rule: &Rule, text: &str) -> Option<(String, Vec<Span>)> {
    let mut out = String::new();
    let mut spans = Vec::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(c) = rule.re().captures_at(text, from) {
        let Some(m) = c.get(0) else { break };
        let whole = m.as_str();
        let kept: String = (1..=rule.keep)
            .filter_map(|i| c.get(i).map(|g| g.as_str()))
            .collect();
        let secret = &whole[kept.len().min(whole.len())..whole.len() - rule.suffix.len()];
        let after = &text[m.end()..];
        // A call such as `token = getToken()` assigns code, not a secret; a "value"
        // followed by `:` or `=` is the next key (`password: api_key: x`).
        let is_call = rule.kind == "secret"
            && after.starts_with('(')
            && secret
                .chars()
                .all(|c| c.is_alphanumeric() || "_.$:".contains(c));
        let is_key = rule.keyed && swallowed_key(secret, after);
        if secret.starts_with("[REDACTED") || is_call || is_key || !(rule.accept)(secret) {
            // Search again from where the value began: a key it swallowed gets its turn.
            from = if kept.is_empty() || kept.len() >= whole.len() {
                m.end().max(from + 1)
            } else {
                m.start() + kept.len()
            };
            // `from` must stay on a character boundary.
            while from < text.len() && !text.is_char_boundary(from) {
                from += 1;
            }
            if from > text.len() {
                break;
            }
            continue;
        }
        out.push_str(&text[copied..m.start()]);
        let to_start = out.len();
        out.push_str(&kept);
        out.push_str("[REDACTED:");
        out.push_str(rule.kind);
        out.push(']');
        out.push_str(rule.suffix);
        spans.push(Span {
            from: m.start()..m.end(),
            to: to_start..out.len(),
        });
        copied = m.end();
        from = m.end();
    }
    (copied > 0).then(|| {
        out.push_str(&text[copied..]);
        (out, spans)
    })
}

/// Redacts when `enabled`, otherwise returns the text unchanged.
pub fn redact_if(enabled: bool, text: &str) -> Cow<'_, str> {
    if enabled {
        redact(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// A long text kept only as much as a head-and-tail cut of it can show, with enough
/// around the cut to redact it as a whole.
///
/// Cutting first and redacting after leaks: a private key whose BEGIN line falls in the
/// omitted middle is no longer recognisable in the tail. Redacting a whole multi-megabyte
/// tool output that will be cut to a thousand characters costs too much. So each end is
/// kept with a margin wider than any secret ([`Clipped::MARGIN`]), redacted with that
/// context, and only then cut ([`Clipped::render`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clipped {
    /// The text, or its first `keep / 2 + MARGIN` characters.
    head: String,
    /// Its last `keep / 2 + MARGIN` characters; empty when `head` is the whole text.
    tail: String,
    /// Characters in the whole text.
    total_chars: usize,
}

impl Clipped {
    /// Context kept beyond each cut: more than the longest secret the rules know (a
    /// 4096-bit RSA key in PEM is about 3,300 characters).
    pub const MARGIN: usize = 4_096;

    /// Keeps what a cut to at most `keep` characters may show of `text`.
    pub fn new(text: &str, keep: usize) -> Clipped {
        let total_chars = text.chars().count();
        let window = keep / 2 + Self::MARGIN;
        if total_chars <= 2 * window {
            return Clipped {
                head: text.to_string(),
                tail: String::new(),
                total_chars,
            };
        }
        let head = crate::text::prefix_chars(text, window).to_string();
        let tail_start = text
            .char_indices()
            .nth(total_chars - window)
            .map_or(text.len(), |(i, _)| i);
        Clipped {
            head,
            tail: text[tail_start..].to_string(),
            total_chars,
        }
    }

    /// A clip made elsewhere: the text's first and last `keep / 2 + MARGIN` characters
    /// (as [`Clipped::new`] keeps them) and its length in characters.
    pub(crate) fn from_parts(head: String, tail: String, total_chars: usize) -> Clipped {
        Clipped {
            head,
            tail,
            total_chars,
        }
    }

    /// The start of the text, unredacted (for machine reading, never for output).
    pub fn head(&self) -> &str {
        &self.head
    }

    /// The whole text's length, in characters.
    pub(crate) fn total_chars(&self) -> usize {
        self.total_chars
    }

    /// The end of the text when it was clipped (else empty), unredacted (for machine
    /// reading, never for output).
    pub fn tail(&self) -> &str {
        &self.tail
    }

    /// The text redacted (when `redact`), then cut to its first and last `max / 2`
    /// characters around a marker that counts what the whole text lost.
    pub fn render(&self, max: usize, redact: bool) -> String {
        if self.tail.is_empty() {
            let head = redact_if(redact, self.head.trim_start());
            return crate::text::head_tail(head.trim_end(), max);
        }
        // Each end is shown only up to where its margin begins, wherever redaction moved
        // that place: a replacement shorter than its secret (a key swallowed to the end
        // of the text) must not pull the margin, where a secret may lie cut in two and
        // unrecognised, into view.
        let margin_at = |text: &str, chars: usize| {
            text.char_indices()
                .nth(chars)
                .map_or(text.len(), |(i, _)| i)
        };
        let head_end = margin_at(
            &self.head,
            self.head.chars().count().saturating_sub(Self::MARGIN),
        );
        let tail_start = margin_at(&self.tail, Self::MARGIN);
        let (head, head_end) = if redact {
            redact_mapping(&self.head, head_end, true)
        } else {
            (Cow::Borrowed(self.head.as_str()), head_end)
        };
        let (tail, tail_start) = if redact {
            redact_mapping(&self.tail, tail_start, false)
        } else {
            (Cow::Borrowed(self.tail.as_str()), tail_start)
        };
        let head = head[..head_end].trim_start();
        let tail = tail[tail_start..].trim_end();
        let half = max / 2;
        let shown_head = crate::text::prefix_chars(head, half);
        let tail_chars = tail.chars().count();
        let shown_tail = tail
            .char_indices()
            .nth(tail_chars.saturating_sub(half))
            .map_or("", |(i, _)| &tail[i..]);
        let omitted = self
            .total_chars
            .saturating_sub(shown_head.chars().count() + shown_tail.chars().count());
        format!("{shown_head}\n[… {omitted} characters omitted …]\n{shown_tail}")
    }
}

#[cfg(test)]
mod tests;
