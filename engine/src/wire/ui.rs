//! UI helpers (WIRE.md §3). Each returns a [`UiBlock`]; the `<ui_passthrough>` wrapper and
//! the neutralisation of reserved tags in the content happen when the response is built.

use super::blocks::{UiBlock, UiMeta};
use crate::error::{Category, Error, Result};

/// The one fencing primitive: a backtick run one longer than the longest run of backticks in
/// `body` (at least 3), then `lang`, LF, `body`, LF, the same run. A body can never close
/// its own fence.
pub fn fence(lang: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for b in body.bytes() {
        if b == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let ticks = "`".repeat((longest + 1).max(3));
    let mut s = String::with_capacity(body.len() + lang.len() + 2 * ticks.len() + 2);
    s.push_str(&ticks);
    s.push_str(lang);
    s.push('\n');
    s.push_str(body);
    s.push('\n');
    s.push_str(&ticks);
    s
}

/// An `echarts` block: the pretty JSON of `config`, fenced. Reserved tags inside become
/// `\u003c` (lossless for a JSON reader).
pub fn echarts(config: crate::doc::Value<'_>) -> UiBlock {
    json_fenced("echarts", config)
}

/// A `json` block: the pretty JSON of `value`, fenced.
pub fn json(value: crate::doc::Value<'_>) -> UiBlock {
    json_fenced("json", value)
}

fn json_fenced(kind: &str, value: crate::doc::Value<'_>) -> UiBlock {
    let body = crate::json::to_string_pretty(value);
    let mut b = UiBlock::new(kind, fence(kind, &body));
    b.escape = super::tag_safe::UiEscape::JsonUnicode;
    b
}

/// A `mermaid` block: the diagram, fenced.
pub fn mermaid(diagram: &str) -> UiBlock {
    UiBlock::new("mermaid", fence("mermaid", diagram))
}

/// A `markdown` block: the text verbatim (not fenced).
pub fn markdown(md: &str) -> UiBlock {
    UiBlock::new("markdown", md)
}

/// A code block: type = `lang`, content = the code fenced with `lang`.
pub fn code_block(lang: &str, code: &str) -> UiBlock {
    UiBlock::new(lang, fence(lang, code))
}

/// A `markdown` list: `- item` lines joined by LF; no items gives empty content.
pub fn list<I: IntoIterator<Item = S>, S: AsRef<str>>(items: I) -> UiBlock {
    let mut s = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str("- ");
        s.push_str(item.as_ref());
    }
    UiBlock::new("markdown", s)
}

/// A `summary` block: `📊 **Summary**: ` + text.
pub fn summary(text: &str) -> UiBlock {
    UiBlock::new("summary", format!("📊 **Summary**: {text}"))
}

fn push_cell(s: &mut String, cell: &str) {
    for c in cell.chars() {
        match c {
            '|' => s.push_str("\\|"),
            '\n' | '\r' => s.push(' '),
            c => s.push(c),
        }
    }
}

/// A markdown table (type `markdown`): header row, `| --- |` row, one row per entry. Cells:
/// `|` → `\|`, LF/CR → space; short rows are padded with empty cells.
///
/// # Errors
///
/// A row longer than the header.
pub fn table<H, R, C>(headers: &[H], rows: R) -> Result<UiBlock>
where
    H: AsRef<str>,
    R: IntoIterator<Item = C>,
    C: IntoIterator,
    C::Item: AsRef<str>,
{
    let mut s = String::new();
    s.push('|');
    for h in headers {
        s.push(' ');
        push_cell(&mut s, h.as_ref());
        s.push_str(" |");
    }
    s.push_str("\n|");
    for _ in headers {
        s.push_str(" --- |");
    }
    for (r, row) in rows.into_iter().enumerate() {
        s.push_str("\n|");
        let mut n = 0;
        for cell in row {
            n += 1;
            if n > headers.len() {
                return Err(Error::new(
                    Category::Syntax,
                    format!(
                        "table row {r} has more cells than the {} headers",
                        headers.len()
                    ),
                ));
            }
            s.push(' ');
            push_cell(&mut s, cell.as_ref());
            s.push_str(" |");
        }
        for _ in n..headers.len() {
            s.push_str("  |");
        }
    }
    Ok(UiBlock::new("markdown", s))
}

impl UiBlock {
    /// Sets the title.
    pub fn title(mut self, title: impl Into<String>) -> UiBlock {
        self.meta.title = Some(title.into());
        self
    }

    /// Sets the width.
    pub fn width(mut self, width: super::blocks::Width) -> UiBlock {
        self.meta.width = Some(width);
        self
    }

    /// Sets the priority.
    pub fn priority(mut self, priority: i64) -> UiBlock {
        self.meta.priority = Some(priority);
        self
    }

    /// Replaces all attributes.
    pub fn meta_mut(&mut self) -> &mut UiMeta {
        &mut self.meta
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Width;

    fn wrapped(b: &UiBlock) -> String {
        let mut v = Vec::new();
        b.write(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn fence_outgrows_the_body() {
        assert_eq!(fence("js", "x"), "```js\nx\n```");
        assert_eq!(fence("", "a ``` b"), "````\na ``` b\n````");
        assert_eq!(fence("md", "`````"), "``````md\n`````\n``````");
        assert_eq!(fence("x", "``"), "```x\n``\n```");
    }

    #[test]
    fn helpers_exact_texts() {
        assert_eq!(
            wrapped(&mermaid("graph TD; A-->B")),
            "<ui_passthrough type=\"mermaid\">\n```mermaid\ngraph TD; A-->B\n```\n</ui_passthrough>"
        );
        assert_eq!(
            wrapped(&markdown("**b** <tool_error>")),
            "<ui_passthrough type=\"markdown\">\n**b** &lt;tool_error>\n</ui_passthrough>"
        );
        assert_eq!(
            code_block("sql", "select 1").content(),
            "```sql\nselect 1\n```"
        );
        assert_eq!(code_block("sql", "select 1").kind(), "sql");
        assert_eq!(list(["a", "b"]).content(), "- a\n- b");
        assert_eq!(list(Vec::<String>::new()).content(), "");
        assert_eq!(summary("3 rows").content(), "📊 **Summary**: 3 rows");
        assert_eq!(
            wrapped(&summary("x").title("T").width(Width::Full).priority(2)),
            "<ui_passthrough type=\"summary\" title=\"T\" width=\"full\" priority=\"2\">\n📊 **Summary**: x\n</ui_passthrough>"
        );
    }

    #[test]
    fn json_blocks_are_fenced_pretty_json() {
        let src = br#"{"a":[1,"<tool_error>"],"b":"```"}"#;
        let mut b = crate::doc::DocBuilder::new(src);
        let o = b.begin_object();
        b.string(b"a");
        let a = b.begin_array();
        b.i64(1);
        b.string(b"<tool_error>");
        b.end_array(a, 2);
        b.string(b"b");
        b.string(b"```");
        b.end_object(o, 2);
        let doc = b.finish();
        assert_eq!(
            wrapped(&json(doc.root())),
            "<ui_passthrough type=\"json\">\n````json\n{\n  \"a\": [\n    1,\n    \"\\u003ctool_error>\"\n  ],\n  \"b\": \"```\"\n}\n````\n</ui_passthrough>"
        );
        assert_eq!(echarts(doc.root()).kind(), "echarts");
    }

    #[test]
    fn tables_escape_pad_and_reject() {
        let t = table(&["id", "a|b"], vec![vec!["1", "x\ny|z"], vec!["2"]]).unwrap();
        assert_eq!(
            t.content(),
            "| id | a\\|b |\n| --- | --- |\n| 1 | x y\\|z |\n| 2 |  |"
        );
        let empty = table(&["h"], Vec::<Vec<&str>>::new()).unwrap();
        assert_eq!(empty.content(), "| h |\n| --- |");
        let err = table(&["h"], vec![vec!["1", "2"]]).unwrap_err();
        assert_eq!(
            err.message(),
            "table row 0 has more cells than the 1 headers"
        );
    }
}
