//! JSON read with the byte span of every value and member, so that a file the user
//! wrote can be edited in place: what the installer adds or removes is spliced into the
//! text, and everything else keeps its bytes (its formatting, key order and comments
//! of style).
//!
//! The text is first checked by `serde_json` (so only valid JSON is ever edited); this
//! reader then only has to find where things are.

use std::ops::Range;

/// A JSON value and where it is in the text.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Node {
    pub span: Range<usize>,
    pub kind: Kind,
}

/// What a value is, as far as editing needs.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    String(String),
    /// A number, `true`, `false` or `null`.
    Scalar,
}

/// One `"key": value` of an object; `span` runs from the key's quote to the value's end.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Member {
    pub key: String,
    pub span: Range<usize>,
    pub value: Node,
}

impl Node {
    /// The member `key` of an object.
    pub fn member(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|m| m.key == key),
            _ => None,
        }
    }

    /// The members of an object (none for another value).
    pub fn members(&self) -> &[Member] {
        match &self.kind {
            Kind::Object(m) => m,
            _ => &[],
        }
    }

    /// The elements of an array (none for another value).
    pub fn elements(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(e) => e,
            _ => &[],
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Reads `text` (already known to be valid JSON) with its spans.
pub(super) fn parse(text: &str) -> Option<Node> {
    let mut p = Parser {
        b: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    let node = p.value(0)?;
    p.ws();
    (p.i == p.b.len()).then_some(node)
}

/// Deeper nesting than a hooks file has is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.i;
        let kind = match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let key_start = self.i;
                        let key = self.string()?;
                        self.ws();
                        (self.b.get(self.i) == Some(&b':')).then_some(())?;
                        self.i += 1;
                        self.ws();
                        let value = self.value(depth + 1)?;
                        members.push(Member {
                            key,
                            span: key_start..value.span.end,
                            value,
                        });
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Kind::Object(members)
            }
            b'[' => {
                self.i += 1;
                let mut elements = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        elements.push(self.value(depth + 1)?);
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Kind::Array(elements)
            }
            b'"' => Kind::String(self.string()?),
            _ => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
                (self.i > start).then_some(())?;
                Kind::Scalar
            }
        };
        Some(Node {
            span: start..self.i,
            kind,
        })
    }

    fn string(&mut self) -> Option<String> {
        let start = self.i;
        (self.b.get(self.i) == Some(&b'"')).then_some(())?;
        self.i += 1;
        while *self.b.get(self.i)? != b'"' {
            self.i += if self.b[self.i] == b'\\' { 2 } else { 1 };
        }
        self.i += 1;
        serde_json::from_str(self.text.get(start..self.i)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_the_values_and_members() {
        let text = "{\n  \"hooks\": {\"A\": [1, {\"x\": \"y\\\"\"}]},\n  \"n\": null\n}\n";
        let root = parse(text).unwrap();
        let hooks = root.member("hooks").unwrap();
        assert_eq!(
            &text[hooks.span.clone()],
            "\"hooks\": {\"A\": [1, {\"x\": \"y\\\"\"}]}"
        );
        let a = hooks.value.member("A").unwrap();
        assert_eq!(a.value.elements().len(), 2);
        assert_eq!(
            &text[a.value.elements()[1].span.clone()],
            "{\"x\": \"y\\\"\"}"
        );
        assert_eq!(
            a.value.elements()[1].member("x").unwrap().value.as_str(),
            Some("y\"")
        );
        assert_eq!(root.members()[1].key, "n");
        assert!(parse("{\"a\": 1} x").is_none());
        assert!(parse("[").is_none());
        assert_eq!(parse("[]").unwrap().elements().len(), 0);
    }
}
