//! Exact block texts (WIRE.md §1.2, §8). Every untrusted string goes through the escapes of
//! [`super::tag_safe`]; only the tags written here appear in the output.

use super::tag_safe::{
    UiEscape, write_attr_value, write_element_text, write_item_text, write_ui_content,
};
use crate::error::{Category, Error, Result};
use crate::sink::Sink;

/// The `width` attribute of a UI block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// `full`
    Full,
    /// `half`
    Half,
    /// `third`
    Third,
}

impl Width {
    /// The attribute text.
    pub fn as_str(self) -> &'static str {
        match self {
            Width::Full => "full",
            Width::Half => "half",
            Width::Third => "third",
        }
    }

    /// Parses `full`, `half` or `third`.
    ///
    /// # Errors
    ///
    /// Any other text (WIRE.md §2: a width other than full/half/third is an error).
    pub fn parse(s: &str) -> Result<Width> {
        match s {
            "full" => Ok(Width::Full),
            "half" => Ok(Width::Half),
            "third" => Ok(Width::Third),
            _ => Err(Error::new(
                Category::Syntax,
                format!(
                    "width must be full, half or third, found '{}'",
                    s.escape_debug()
                ),
            )),
        }
    }
}

/// Optional attributes of a UI block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct UiMeta {
    /// `title="…"`, omitted when absent or empty.
    pub title: Option<String>,
    /// `width="…"`.
    pub width: Option<Width>,
    /// `priority="N"`, written whenever set (0 included).
    pub priority: Option<i64>,
}

/// A UI block: `{type, content, meta}`. The `<ui_passthrough>` wrapper is added when the
/// response is built.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UiBlock {
    pub(crate) kind: String,
    pub(crate) content: String,
    pub(crate) escape: UiEscape,
    pub(crate) meta: UiMeta,
}

impl UiBlock {
    /// A block of type `kind` with `content` (reserved tags in it are neutralised with `&lt;`
    /// when the block is written).
    pub fn new(kind: impl Into<String>, content: impl Into<String>) -> UiBlock {
        UiBlock {
            kind: kind.into(),
            content: content.into(),
            escape: UiEscape::Entity,
            meta: UiMeta::default(),
        }
    }

    /// Sets the attributes.
    pub fn with_meta(mut self, meta: UiMeta) -> UiBlock {
        self.meta = meta;
        self
    }

    /// The block's type.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The block's content, before escaping.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The block's attributes.
    pub fn meta(&self) -> &UiMeta {
        &self.meta
    }

    /// Writes `<ui_passthrough type="T"[ title="…"][ width="…"][ priority="N"]>` LF content LF
    /// `</ui_passthrough>`.
    pub fn write<W: Sink + ?Sized>(&self, out: &mut W) {
        out.write(b"<ui_passthrough type=\"");
        write_attr_value(out, self.kind.as_bytes());
        out.write(b"\"");
        if let Some(title) = self.meta.title.as_deref().filter(|t| !t.is_empty()) {
            out.write(b" title=\"");
            write_attr_value(out, title.as_bytes());
            out.write(b"\"");
        }
        if let Some(w) = self.meta.width {
            out.write(b" width=\"");
            out.write(w.as_str().as_bytes());
            out.write(b"\"");
        }
        if let Some(p) = self.meta.priority {
            out.write(b" priority=\"");
            crate::num::write_i64(out, p);
            out.write(b"\"");
        }
        out.write(b">\n");
        write_ui_content(out, self.content.as_bytes(), self.escape);
        out.write(b"\n</ui_passthrough>");
    }
}

/// An action suggestion: `- tool: reason`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Suggestion {
    /// The tool to call.
    pub tool: String,
    /// Why.
    pub reason: String,
}

/// Writes a bullet block `<tag>` LF `- item` … LF `</tag>`; nothing when `items` is empty.
/// Returns whether anything was written.
pub(crate) fn write_bullets<W: Sink + ?Sized, S: AsRef<str>>(
    out: &mut W,
    tag: &str,
    items: &[S],
) -> bool {
    if items.is_empty() {
        return false;
    }
    out.write_byte(b'<');
    out.write(tag.as_bytes());
    out.write_byte(b'>');
    for item in items {
        out.write(b"\n- ");
        write_item_text(out, item.as_ref().as_bytes());
    }
    out.write(b"\n</");
    out.write(tag.as_bytes());
    out.write_byte(b'>');
    true
}

/// Writes `<action_suggestions>` with `- tool: reason` lines; nothing when empty.
pub(crate) fn write_suggestions<W: Sink + ?Sized>(out: &mut W, items: &[Suggestion]) -> bool {
    if items.is_empty() {
        return false;
    }
    out.write(b"<action_suggestions>");
    for s in items {
        out.write(b"\n- ");
        write_item_text(out, s.tool.as_bytes());
        out.write(b": ");
        write_item_text(out, s.reason.as_bytes());
    }
    out.write(b"\n</action_suggestions>");
    true
}

/// Severity of a `tool_error`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Severity {
    /// `warning`: `isError` is written `false`.
    Warning,
    /// `error` (the default).
    #[default]
    Error,
    /// `critical`.
    Critical,
}

impl Severity {
    /// The attribute text.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }
}

/// A structured tool error (WIRE.md §8), built with [`ToolError::new`] and its setters.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolError {
    code: String,
    message: String,
    severity: Severity,
    recovery: Option<String>,
    actions: Vec<String>,
    details: Vec<(String, String)>,
    retry_after: Option<f64>,
}

impl ToolError {
    /// An error with `code` (for example `NOT_FOUND`), severity `error`, empty message.
    pub fn new(code: impl Into<String>) -> ToolError {
        ToolError {
            code: code.into(),
            message: String::new(),
            severity: Severity::Error,
            recovery: None,
            actions: Vec::new(),
            details: Vec::new(),
            retry_after: None,
        }
    }

    /// Sets the message.
    pub fn message(mut self, m: impl Into<String>) -> Self {
        self.message = m.into();
        self
    }

    /// Sets the recovery hint.
    pub fn recovery(mut self, r: impl Into<String>) -> Self {
        self.recovery = Some(r.into());
        self
    }

    /// Sets the available actions.
    pub fn actions<I: IntoIterator<Item = S>, S: Into<String>>(mut self, actions: I) -> Self {
        self.actions = actions.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a detail `key = value`.
    pub fn detail(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.details.push((key.into(), value.into()));
        self
    }

    /// Sets the retry delay in seconds (written only when finite and > 0).
    pub fn retry_after(mut self, seconds: f64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// Sets the severity.
    pub fn severity(mut self, s: Severity) -> Self {
        self.severity = s;
        self
    }

    /// The `isError` flag this error gives the response: `false` only for warnings.
    pub fn is_error(&self) -> bool {
        self.severity != Severity::Warning
    }

    /// Writes the `<tool_error …>` block.
    pub fn write<W: Sink + ?Sized>(&self, out: &mut W) {
        out.write(b"<tool_error code=\"");
        write_attr_value(out, self.code.as_bytes());
        out.write(b"\" severity=\"");
        out.write(self.severity.as_str().as_bytes());
        out.write(b"\">\n<message>");
        write_element_text(out, self.message.as_bytes());
        out.write(b"</message>");
        if let Some(r) = &self.recovery {
            out.write(b"\n<recovery>");
            write_element_text(out, r.as_bytes());
            out.write(b"</recovery>");
        }
        if !self.actions.is_empty() {
            out.write(b"\n<available_actions>");
            for a in &self.actions {
                out.write(b"\n  <action>");
                write_element_text(out, a.as_bytes());
                out.write(b"</action>");
            }
            out.write(b"\n</available_actions>");
        }
        if !self.details.is_empty() {
            out.write(b"\n<details>");
            for (k, v) in &self.details {
                out.write(b"\n  <detail key=\"");
                write_attr_value(out, k.as_bytes());
                out.write(b"\">");
                write_element_text(out, v.as_bytes());
                out.write(b"</detail>");
            }
            out.write(b"\n</details>");
        }
        if let Some(s) = self.retry_after.filter(|s| s.is_finite() && *s > 0.0) {
            out.write(b"\n<retry_after>");
            crate::num::write_f64(out, s);
            out.write(b" seconds</retry_after>");
        }
        out.write(b"\n</tool_error>");
    }
}

/// Writes the simple `error(message)` envelope, with an optional code.
pub(crate) fn write_simple_error<W: Sink + ?Sized>(out: &mut W, code: Option<&str>, message: &str) {
    out.write(b"<tool_error");
    if let Some(c) = code {
        out.write(b" code=\"");
        write_attr_value(out, c.as_bytes());
        out.write(b"\"");
    }
    out.write(b">\n<message>");
    write_element_text(out, message.as_bytes());
    out.write(b"</message>\n</tool_error>");
}

/// Writes the `required(field)` envelope.
pub(crate) fn write_required<W: Sink + ?Sized>(out: &mut W, field: &str) {
    out.write(b"<tool_error code=\"MISSING_REQUIRED_FIELD\">\n<message>Required field \"");
    write_element_text(out, field.as_bytes());
    out.write(b"\" is missing.</message>\n<recovery>Provide the \"");
    write_element_text(out, field.as_bytes());
    out.write(b"\" parameter and retry.</recovery>\n</tool_error>");
}

/// One problem of an input validation error: the field path and the detail text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldProblem {
    /// The field path, e.g. `_select` or `filters.status`.
    pub name: String,
    /// What is wrong, then ` You sent: …`, then a hint.
    pub detail: String,
}

/// Writes `<validation_error action="…">` with one `<field>` per problem and the fixed recovery.
pub(crate) fn write_validation_error<W: Sink + ?Sized>(
    out: &mut W,
    action: &str,
    problems: &[FieldProblem],
) {
    out.write(b"<validation_error action=\"");
    write_attr_value(out, action.as_bytes());
    out.write(b"\">");
    for p in problems {
        out.write(b"\n<field name=\"");
        write_attr_value(out, p.name.as_bytes());
        out.write(b"\">");
        write_element_text(out, p.detail.as_bytes());
        out.write(b"</field>");
    }
    out.write(
        b"\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>",
    );
}

/// The ` You sent: <value>` rendering of WIRE.md §8 for a string value: single quotes, cut
/// to 47 Unicode scalars + `...` when longer than 50.
pub fn you_sent_string(s: &str) -> String {
    if s.chars().count() > 50 {
        let cut: String = s.chars().take(47).collect();
        format!("'{cut}...'")
    } else {
        format!("'{s}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn ui_wrapper_attributes_in_order() {
        let b = UiBlock::new("markdown", "hi").with_meta(UiMeta {
            title: Some("T \"x\"".into()),
            width: Some(Width::Half),
            priority: Some(0),
        });
        assert_eq!(
            text(|o| b.write(o)),
            "<ui_passthrough type=\"markdown\" title=\"T &quot;x&quot;\" width=\"half\" priority=\"0\">\nhi\n</ui_passthrough>"
        );
        let empty_title = UiBlock::new("x\"<", "</ui_passthrough>").with_meta(UiMeta {
            title: Some(String::new()),
            width: None,
            priority: Some(-3),
        });
        assert_eq!(
            text(|o| empty_title.write(o)),
            "<ui_passthrough type=\"x&quot;&lt;\" priority=\"-3\">\n&lt;/ui_passthrough>\n</ui_passthrough>"
        );
        assert!(Width::parse("wide").is_err());
        assert_eq!(Width::parse("third").unwrap(), Width::Third);
    }

    #[test]
    fn bullets_and_suggestions() {
        assert_eq!(
            text(|o| {
                write_bullets(o, "domain_rules", &["a", "", "b\nc"]);
            }),
            "<domain_rules>\n- a\n- \n- b\n  c\n</domain_rules>"
        );
        assert_eq!(
            text(|o| assert!(!write_bullets::<_, &str>(o, "llm_directives", &[]))),
            ""
        );
        assert_eq!(
            text(|o| {
                write_suggestions(
                    o,
                    &[Suggestion {
                        tool: "billing.get".into(),
                        reason: "View <details>".into(),
                    }],
                );
            }),
            "<action_suggestions>\n- billing.get: View &lt;details>\n</action_suggestions>"
        );
    }

    #[test]
    fn tool_error_full_envelope() {
        let e = ToolError::new("RATE_LIMITED")
            .message("Too many <requests> & more")
            .recovery("Wait.")
            .actions(["retry", "list"])
            .detail("limit", "100")
            .detail("k\"", "v<")
            .retry_after(1.5)
            .severity(Severity::Critical);
        assert_eq!(
            text(|o| e.write(o)),
            "<tool_error code=\"RATE_LIMITED\" severity=\"critical\">\n<message>Too many &lt;requests> &amp; more</message>\n<recovery>Wait.</recovery>\n<available_actions>\n  <action>retry</action>\n  <action>list</action>\n</available_actions>\n<details>\n  <detail key=\"limit\">100</detail>\n  <detail key=\"k&quot;\">v&lt;</detail>\n</details>\n<retry_after>1.5 seconds</retry_after>\n</tool_error>"
        );
        assert!(e.is_error());
        let w = ToolError::new("X")
            .message("m")
            .retry_after(f64::INFINITY)
            .severity(Severity::Warning);
        assert_eq!(
            text(|o| w.write(o)),
            "<tool_error code=\"X\" severity=\"warning\">\n<message>m</message>\n</tool_error>"
        );
        assert!(!w.is_error());
        let zero = ToolError::new("X").retry_after(0.0);
        assert!(!text(|o| zero.write(o)).contains("retry_after"));
    }

    #[test]
    fn simple_required_and_validation() {
        assert_eq!(
            text(|o| write_simple_error(o, None, "boom\n<x>")),
            "<tool_error>\n<message>boom\n&lt;x></message>\n</tool_error>"
        );
        assert_eq!(
            text(|o| write_simple_error(o, Some("NOT_FOUND"), "m")),
            "<tool_error code=\"NOT_FOUND\">\n<message>m</message>\n</tool_error>"
        );
        assert_eq!(
            text(|o| write_required(o, "id")),
            "<tool_error code=\"MISSING_REQUIRED_FIELD\">\n<message>Required field \"id\" is missing.</message>\n<recovery>Provide the \"id\" parameter and retry.</recovery>\n</tool_error>"
        );
        assert_eq!(
            text(|o| write_validation_error(
                o,
                "billing/list",
                &[FieldProblem {
                    name: "_select".into(),
                    detail: "Unknown field 'x'. You sent: 'x'.".into()
                }]
            )),
            "<validation_error action=\"billing/list\">\n<field name=\"_select\">Unknown field 'x'. You sent: 'x'.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
        );
    }

    #[test]
    fn you_sent_cuts_long_strings_by_scalars() {
        assert_eq!(you_sent_string("abc"), "'abc'");
        let fifty = "é".repeat(50);
        assert_eq!(you_sent_string(&fifty), format!("'{fifty}'"));
        let fifty_one = "é".repeat(51);
        assert_eq!(
            you_sent_string(&fifty_one),
            format!("'{}...'", "é".repeat(47))
        );
    }
}
