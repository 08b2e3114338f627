//! [`Format`]: the data block's serialization, and the only place its names are spelled.
//!
//! Every interface (the CLI's `--format`, presenter files, the MCP server's `format`
//! argument, the bindings' options) reads and writes format names through
//! [`Format::from_str`](std::str::FromStr) and [`Format`]'s `Display`, so a name means the
//! same thing everywhere.

use std::fmt;
use std::str::FromStr;

use crate::toon::Delimiter;

/// The data block's serialization (WIRE.md §1.3).
///
/// ```
/// use toolwire::toon::Delimiter;
/// use toolwire::wire::Format;
///
/// assert_eq!("toon-comma".parse::<Format>(), Ok(Format::Toon(Delimiter::Comma)));
/// assert_eq!("toon-pipe".parse::<Format>(), Ok(Format::Toon(Delimiter::Pipe)));
/// assert_eq!(Format::Toon(Delimiter::Pipe).to_string(), "toon");
/// let names: Vec<String> = Format::ALL.iter().map(|f| f.to_string()).collect();
/// assert_eq!(names, ["pretty", "compact", "toon", "toon-comma", "toon-tab", "auto"]);
/// assert_eq!(
///     "yaml".parse::<Format>().unwrap_err().to_string(),
///     "unknown format 'yaml' (pretty, compact, toon, toon-comma, toon-tab, auto)"
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// `JSON.stringify(data, null, 2)` (the default, parity).
    #[default]
    Pretty,
    /// `JSON.stringify(data)`.
    Compact,
    /// TOON 4.4 with the given delimiter (`toon_success` uses `|`).
    Toon(Delimiter),
    /// The cheapest of pretty, compact, TOON-comma and TOON-pipe
    /// ([`super::choose_auto`]: by `o200k_base` with feature `tokenizer`, by the
    /// engine's estimator without; never an empty block); the side door's `format` records
    /// the choice. A Presenter chooses on the rows its block shows, then fits its
    /// `token_budget` in the chosen format.
    Auto,
}

/// Every format and its canonical name, in the order interfaces list them.
const NAMED: [(&str, Format); 6] = [
    ("pretty", Format::Pretty),
    ("compact", Format::Compact),
    ("toon", Format::Toon(Delimiter::Pipe)),
    ("toon-comma", Format::Toon(Delimiter::Comma)),
    ("toon-tab", Format::Toon(Delimiter::Tab)),
    ("auto", Format::Auto),
];

/// Other spellings [`Format::from_str`] accepts (presenter files have always taken them).
const ALIASES: [(&str, Format); 2] = [
    ("json", Format::Pretty),
    ("toon-pipe", Format::Toon(Delimiter::Pipe)),
];

impl Format {
    /// The TOON encoder's options of a data block in this format; `None` when it is not TOON.
    pub fn toon_options(self) -> Option<crate::toon::EncodeOptions> {
        match self {
            Format::Toon(d) => Some(crate::toon::EncodeOptions::new().delimiter(d)),
            _ => None,
        }
    }

    /// Every format, in the order interfaces list them: pretty, compact, toon (pipe),
    /// toon-comma, toon-tab, auto.
    pub const ALL: [Format; 6] = [
        NAMED[0].1, NAMED[1].1, NAMED[2].1, NAMED[3].1, NAMED[4].1, NAMED[5].1,
    ];

    /// The formats a data block is actually written in: [`Format::ALL`] without `auto`.
    pub const FIXED: [Format; 5] = [NAMED[0].1, NAMED[1].1, NAMED[2].1, NAMED[3].1, NAMED[4].1];

    /// The canonical names of [`Format::ALL`], in the same order (for `--help` lists and
    /// JSON Schema enums).
    pub const NAMES: [&'static str; 6] = [
        NAMED[0].0, NAMED[1].0, NAMED[2].0, NAMED[3].0, NAMED[4].0, NAMED[5].0,
    ];

    /// What the format writes, in a few words (for `--help` lists and tool schemas).
    pub fn meaning(self) -> &'static str {
        match self {
            Format::Pretty => "JSON.stringify(data, null, 2)",
            Format::Compact => "JSON.stringify(data)",
            Format::Toon(Delimiter::Pipe) => "TOON with `|` (as toon_success)",
            Format::Toon(Delimiter::Comma) => "TOON with `,`",
            Format::Toon(Delimiter::Tab) => "TOON with a tab",
            Format::Auto => {
                "the cheapest of pretty, compact, toon-comma, toon by the engine's token estimator"
            }
        }
    }

    /// The canonical name (`toon` for TOON with `|`).
    pub fn name(self) -> &'static str {
        NAMED
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("pretty", |(n, _)| n)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a format (the error of [`Format::from_str`]); its message lists the
/// valid names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown format '{}' ({})",
            self.0,
            Format::NAMES.join(", ")
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    /// A canonical name of [`Format::NAMES`], or `json` (pretty) or `toon-pipe` (toon).
    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        NAMED
            .iter()
            .chain(&ALIASES)
            .find(|(n, _)| *n == s)
            .map(|(_, f)| *f)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_format() {
        for f in Format::ALL {
            assert_eq!(f.to_string().parse::<Format>(), Ok(f));
        }
        assert_eq!(Format::FIXED.len() + 1, Format::ALL.len());
        assert!(!Format::FIXED.contains(&Format::Auto));
    }
}
