//! Table-driven redaction tests. Secret-shaped strings are assembled at run time so the
//! repository itself holds nothing a secret scanner would flag.

use super::redact;

/// `n` characters cycling through an alphabet (letters and digits mixed).
fn body(n: usize) -> String {
    "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY"
        .chars()
        .cycle()
        .take(n)
        .collect()
}

fn hex(n: usize) -> String {
    "0123456789abcdef".chars().cycle().take(n).collect()
}

/// Text containing a secret, the secret, and the kind it must be reported as.
fn secrets() -> Vec<(String, String, &'static str)> {
    let p = |a: &str, b: &str| format!("{a}{b}");
    let mut cases: Vec<(String, &'static str)> = vec![
        (p("sk-ant-api03-", &body(93)), "anthropic-key"),
        (p("sk-ant-admin01-", &body(80)), "anthropic-key"),
        (p("sk-proj-", &body(120)), "openai-key"),
        (p("sk-", &body(48)), "openai-key"),
        (p("ghp_", &body(36)), "github-token"),
        (p("gho_", &body(36)), "github-token"),
        (p("github_pat_", &body(82)), "github-token"),
        (p("glpat-", &body(20)), "gitlab-token"),
        (p("xoxb-", "2637183-1234567890-AbCdEfGh1234"), "slack-token"),
        (
            p(
                "https://hooks.slack.com/services/",
                "T0000AAAA/B0000BBBB/XXXXxxxxXXXXxxxx1234",
            ),
            "slack-webhook",
        ),
        (p("sk_live_", &body(24)), "stripe-key"),
        (p("rk_test_", &body(24)), "stripe-key"),
        (p("whsec_", &body(32)), "stripe-webhook-secret"),
        (p("AKIA", "IOSFODNN7EXAMPLE"), "aws-access-key"),
        (p("AIza", &body(35)), "google-api-key"),
        (p("ya29.", &body(60)), "google-oauth-token"),
        (p("GOCSPX-", &body(28)), "google-client-secret"),
        (p("npm_", &body(36)), "npm-token"),
        (p("hf_", &body(34)), "huggingface-token"),
        (
            p("SG.", &format!("{}.{}", body(22), body(43))),
            "sendgrid-key",
        ),
        (p("dop_v1_", &hex(64)), "digitalocean-token"),
        (
            format!("eyJ{}.eyJ{}.{}", body(30), body(40), body(43)),
            "jwt",
        ),
    ];
    let mut out: Vec<(String, String, &'static str)> = cases
        .drain(..)
        .map(|(secret, kind)| (format!("the value is {secret} here"), secret, kind))
        .collect();
    // Secrets recognised by their surroundings rather than their shape.
    let contextual: Vec<(String, String, &'static str)> = vec![
        (
            format!(
                "aws_secret_access_key = {}",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
            ),
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            "aws-secret-key",
        ),
        (
            format!(
                "-----BEGIN RSA {}-----\nMIIEowIBAAKCAQEA{}\n-----END RSA {}-----",
                "PRIVATE KEY",
                body(64),
                "PRIVATE KEY"
            ),
            body(64),
            "private-key",
        ),
        (
            format!(
                "-----BEGIN OPENSSH {}-----\nb3BlbnNzaC1rZXktdjEAAAA{} (output truncated)",
                "PRIVATE KEY",
                body(40)
            ),
            body(40),
            "private-key",
        ),
        (
            "DATABASE_URL=postgres://app:S3cr3tPa55@db.internal:5432/prod".into(),
            "S3cr3tPa55".into(),
            "url-credentials",
        ),
        (
            "curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com".into(),
            "abc123def456ghi789".into(),
            "authorization",
        ),
        (
            "x-api-key: k3y-v4lue-123456".into(),
            "k3y-v4lue-123456".into(),
            "api-key",
        ),
        (
            "export DB_PASSWORD=hunter2!x".into(),
            "hunter2!x".into(),
            "secret",
        ),
        (
            "password: \"correct horse\"".into(),
            "correct".into(),
            "secret",
        ),
        (
            "client_secret=Zm9vYmFyYmF6cXV4".into(),
            "Zm9vYmFyYmF6cXV4".into(),
            "secret",
        ),
        (
            "\"api_key\": \"live-9f8e7d6c5b4a\"".into(),
            "live-9f8e7d6c5b4a".into(),
            "secret",
        ),
        (
            "GITHUB_TOKEN=not_a_gh_shape_12345".into(),
            "not_a_gh_shape_12345".into(),
            "secret",
        ),
        // Environment-style names the generic rule did not know.
        ("DB_PASS=Tr0ub4dor3x".into(), "Tr0ub4dor".into(), "secret"),
        (
            "export SESSION_KEY=9f8e7d6c5b4a3928".into(),
            "9f8e7d6c5b4a3928".into(),
            "secret",
        ),
        (
            "SIGNING_KEY: 'c2lnbmluZy1rZXktdmFsdWU'".into(),
            "c2lnbmluZy1rZXktdmFsdWU".into(),
            "secret",
        ),
        (
            "\"JWT_PASSPHRASE\": \"blue-moon-42\"".into(),
            "blue-moon-42".into(),
            "secret",
        ),
        (
            "PASSPHRASE=correcthorsebattery".into(),
            "correcthorsebattery".into(),
            "secret",
        ),
        // Command-line flags.
        (
            "./deploy --password Sup3rS3cret --verbose".into(),
            "Sup3rS3cret".into(),
            "secret",
        ),
        (
            "psql --db-password=Pg_p4ss_2024 -h db".into(),
            "Pg_p4ss_2024".into(),
            "secret",
        ),
        (
            "mysql -u root -pMyR00tPw prod_db".into(),
            "MyR00tPw".into(),
            "secret",
        ),
        (
            "sshpass -p 'Ssh!Pass99' ssh deploy@host".into(),
            "Ssh!Pass99".into(),
            "secret",
        ),
        (
            "curl -u admin:Adm1nPassw0rd https://api.example.com/v1".into(),
            "Adm1nPassw0rd".into(),
            "secret",
        ),
        (
            "curl --user=ci:ciT0kenValue https://x.example".into(),
            "ciT0kenValue".into(),
            "secret",
        ),
        // A password holding `@`: all of it, not only what precedes the first `@`.
        (
            "redis://cache:p@ssw0rd!xyz@redis.internal:6379/0".into(),
            "ssw0rd!xyz".into(),
            "url-credentials",
        ),
        // The tail of a private key whose BEGIN line was cut away.
        (
            format!(
                "[… 9000 characters omitted …]\n{}\n{}\n-----END RSA {}-----\nok",
                body(64),
                body(40),
                "PRIVATE KEY"
            ),
            body(40),
            "private-key",
        ),
    ];
    out.extend(contextual);
    out
}

#[test]
fn every_secret_shape_is_redacted_with_its_kind() {
    let cases = secrets();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for (text, secret, kind) in cases {
        let out = redact(&text);
        assert!(!out.contains(&secret), "{kind}: secret survived in {out:?}");
        assert!(
            out.contains(&format!("[REDACTED:{kind}]")),
            "{kind}: wrong or missing marker in {out:?}"
        );
    }
}

#[test]
fn context_around_a_secret_is_kept() {
    assert_eq!(
        redact("DATABASE_URL=postgres://app:S3cr3tPa55@db.internal:5432/prod"),
        "DATABASE_URL=postgres://app:[REDACTED:url-credentials]@db.internal:5432/prod"
    );
    assert_eq!(
        redact("Authorization: Bearer abc123def456ghi789"),
        "Authorization: Bearer [REDACTED:authorization]"
    );
    assert_eq!(
        redact("export DB_PASSWORD=hunter2!x"),
        "export DB_PASSWORD=[REDACTED:secret]"
    );
    // Redacting twice changes nothing more.
    let once = redact(&secrets()[0].0).into_owned();
    assert_eq!(redact(&once), once);
}

#[test]
fn near_misses_are_not_redacted() {
    let near_misses = [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
        "session ff246da3-e969-4e32-aedc-3d096a93020a resumed",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "the risk-assessment-matrix-for-the-project is ready",
        "pip install scikit-learn and sk-learn-compatible-estimators",
        "use task-list-management-for-long-running-jobs",
        "def login(password: str, token: Optional[str]) -> bool:",
        "token = Base.url_encode64(random_bytes)",
        "password = getpass()",
        "Authorization: ${API_TOKEN}",
        "api_key = os.environ[\"ANTHROPIC_API_KEY\"]",
        "const token = process.env.GITHUB_TOKEN;",
        "git@github.com:org/repo.git and https://user@example.com/path",
        "postgres://localhost:5432/db",
        "max_tokens: 4096, input_tokens: 1200",
        "The authorization flow redirects the user to the consent page.",
        "ghp_short is not a token",
        "AKIA lowercase akiaiosfodnn7example",
        "eyJhbGciOiJIUzI1NiJ9 alone is only a header",
        "secret: [REDACTED:secret]",
        "tokenizer = load_tokenizer()",
        "Error: password must be at least 8 characters",
        "docker run -u 1000:1000 -p 8080:80 image",
        "mkdir -p src/bin && cargo test -p memory-stalker",
        "ssh -p 2222 git@host",
        "git push -u origin main",
        "./run --password-file /etc/app/pw --token-stdin",
        "deploy --password \"$DB_PASSWORD\" --token ${TOKEN}",
        "mysql -u root -p prod_db",
        "sort_key = name",
        "PRIMARY KEY (id)",
        "KEY_ID=abc",
        "https://example.com/a@b and mailto:x@y.z",
        "curl https://api.example.com/users/1",
    ];
    for text in near_misses {
        assert_eq!(redact(text), text, "changed: {text}");
    }
}

#[test]
fn a_truncated_private_key_does_not_swallow_what_follows() {
    let text = format!(
        "before\n-----BEGIN {}-----\\nMIIEow{}\\n{}\nafter the key: keep me\n",
        "PRIVATE KEY",
        body(40),
        body(40)
    );
    let out = redact(&text);
    assert!(out.contains("[REDACTED:private-key]"), "{out}");
    assert!(out.ends_with("after the key: keep me\n"), "{out}");
    assert!(!out.contains(&body(40)));
}

#[test]
fn multibyte_text_is_untouched() {
    let text = "用户说：不要提交密钥。café 🚀 ключ";
    assert_eq!(redact(text), text);
}

#[test]
fn a_key_glued_to_chinese_text_is_redacted() {
    let key = format!("sk-ant-api03-{}", body(40));
    let text = format!("密钥{key}请保管");
    assert_eq!(redact(&text), "密钥[REDACTED:anthropic-key]请保管");
}

/// Found by the property tests: a key with an empty value took the next key's name for
/// its value and left that key's secret in clear; a secret after an escaped line break
/// (`\\n` in JSON text) had no word boundary before it.
#[test]
fn empty_values_and_escaped_line_breaks_hide_no_secret() {
    let key = format!("sk-ant-api03-{}", body(40));
    for (text, secret) in [
        (
            "password:\napi_key: abc123def456".to_string(),
            "abc123def456",
        ),
        (
            "password= client_secret: 'abc123def456'".into(),
            "abc123def456",
        ),
        (
            "x-api-key: \n\npassword: abc123def456".into(),
            "abc123def456",
        ),
        (format!("\\n{key}\\n"), key.as_str()),
        ("\\npassword=AAaAAaAA\\n(".into(), "AAaAAaAA"),
        ("password=\\\"client_secret: 'aAAaa00A' ".into(), "aAAaa00A"),
        (
            "password=authorization=\\\"password: aaaaAa0A ".into(),
            "aaaaAa0A",
        ),
        (
            "\\neyJ0AaAA0a0.eyJAAaAA-AA.sk-0_AAAaAAa0_0--_-__-A\\n".into(),
            "eyJAAaAA-AA",
        ),
        (
            "\\npassword=AAA00aAa\\n\\npassword: AA0A0AaA\\n".into(),
            "AA0A0AaA",
        ),
    ] {
        let out = redact(&text);
        assert!(!out.contains(secret), "{text:?} -> {out:?}");
    }
}

/// Found by the cut property: the tail window began inside an API key (unrecognisable
/// once cut), and a private key without its END line was replaced to the end of the
/// text, so the shown tail, counted on the shorter redacted text, reached back into
/// the margin and showed the cut key's end. The shown ends now stop where the margins
/// begin, wherever redaction moved them.
#[test]
fn a_replacement_shorter_than_its_secret_does_not_pull_the_margin_into_view() {
    use super::Clipped;
    let key = "sk-ant-api03-aaaa00a00Aa0AaaAAaAaAa0aA0Aa0AAAaaaaAaaa";
    let text = format!(" {key} -----BEGIN PRIVATE KEY-----");
    let padded = format!("{}\n{text}\n{}", "x".repeat(9154), "y".repeat(4577));
    for max in [62, 1_000, 3_000] {
        let shown = Clipped::new(&padded, 1036).render(max, true);
        assert!(!shown.contains("aaaaAaaa"), "{max}: {shown:?}");
    }
    // The same at the head: a key cut by the end of the head window.
    let padded = format!("{}\n{text}\n{}", "x".repeat(470), "y".repeat(20_000));
    for max in [62, 1_000, 3_000] {
        let shown = Clipped::new(&padded, 1036).render(max, true);
        assert!(!shown.contains("aaaa00a0"), "{max}: {shown:?}");
    }
}

/// A rule skipped by the literal prefilter must be one that could not have matched: for
/// every text the tests know (secrets, their contexts, near misses) and for texts mixed
/// from the rules' literals, each rule that matches is among the candidates.
#[test]
fn the_prefilter_never_skips_a_rule_that_matches() {
    use super::{candidates, rules};
    let admits = |text: &str| {
        let chosen: Vec<&str> = candidates(text).map(|r| r.re().as_str()).collect();
        for rule in rules() {
            if rule.re().is_match(text) {
                assert!(
                    chosen.contains(&rule.re().as_str()),
                    "{} skipped on {text:?}",
                    rule.kind
                );
            }
        }
    };
    let mut texts: Vec<String> = secrets().into_iter().map(|(t, _, _)| t).collect();
    texts.extend(
        [
            "DATABASE_URL=postgres://app:S3cr3tPa55@db.internal:5432/prod",
            "Authorization: Bearer abc123def456ghi789",
            "export DB_PASSWORD=hunter2!x",
            "mysql -u root -pS3cretPass1 db",
            "sshpass -p 'hunter22' ssh host",
            "curl -u admin:S3cretPass1 https://x",
            "run --db-password=S3cretPass1 now",
            "X-Api-Key: abcdef123456",
            "SIGNING_KEY=abcd1234efgh",
            "PASSPHRASE: correct-horse",
        ]
        .map(String::from),
    );
    for t in &texts {
        admits(t);
    }
    // Texts spliced from pieces of secrets and literals, in a fixed pseudo-random order.
    let pieces: Vec<String> = texts
        .iter()
        .flat_map(|t| {
            let cut = t.len() / 2;
            let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
            [t[..cut].to_string(), t[cut..].to_string()]
        })
        .chain(
            rules()
                .iter()
                .flat_map(|r| r.needs.iter().flat_map(|g| g.iter().map(|l| l.to_string()))),
        )
        .chain(
            [
                " ",
                "=",
                ": ",
                "\\n",
                "\"",
                "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY",
            ]
            .map(String::from),
        )
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20_000 {
        let mut text = String::new();
        for _ in 0..6 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(&pieces[(seed % pieces.len() as u64) as usize]);
        }
        admits(&text);
    }
}
