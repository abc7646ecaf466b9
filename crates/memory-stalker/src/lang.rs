//! The language memory files are written in.

use serde::{Deserialize, Serialize};

/// Heading language of memory files (`MEMORY_STALKER_LANG`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English headings (the default).
    #[default]
    En,
    /// The original design's Chinese headings.
    Zh,
}

impl Lang {
    /// Parses `en`/`zh` (and common spellings such as `zh-CN`, `english`).
    pub fn parse(s: &str) -> Option<Lang> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "en" | "english" => Some(Lang::En),
            _ if s.starts_with("en-") || s.starts_with("en_") => Some(Lang::En),
            "zh" | "chinese" | "cn" => Some(Lang::Zh),
            _ if s.starts_with("zh-") || s.starts_with("zh_") => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The language's name as a summariser should be told it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "Simplified Chinese (简体中文)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_common_spellings() {
        assert_eq!(Lang::parse("zh"), Some(Lang::Zh));
        assert_eq!(Lang::parse("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::parse(" EN "), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
    }
}
