//! The JSON Schema subset a Presenter declares (WIRE.md §5, CLI.md "Presenter file"): `type`
//! (one name or an array of names), `properties` (declaration order is the output key order),
//! `required`, `items`, `enum`, `additionalProperties`.

use crate::doc::{DocBuilder, Node, Number, Value, ValueRef};

/// A JSON type name of the schema subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `null`
    Null,
    /// `boolean`
    Boolean,
    /// `integer`: any number whose value is integral (`1.0` included).
    Integer,
    /// `number`
    Number,
    /// `string`
    String,
    /// `array`
    Array,
    /// `object`
    Object,
}

impl Type {
    /// The JSON Schema name.
    pub fn as_str(self) -> &'static str {
        match self {
            Type::Null => "null",
            Type::Boolean => "boolean",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::String => "string",
            Type::Array => "array",
            Type::Object => "object",
        }
    }

    /// Parses a JSON Schema type name.
    pub fn parse(s: &str) -> Option<Type> {
        Some(match s {
            "null" => Type::Null,
            "boolean" => Type::Boolean,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "string" => Type::String,
            "array" => Type::Array,
            "object" => Type::Object,
            _ => return None,
        })
    }

    fn accepts(self, v: Value<'_>) -> bool {
        match (self, v.get()) {
            (Type::Null, ValueRef::Null)
            | (Type::Boolean, ValueRef::Bool(_))
            | (Type::Number, ValueRef::Number(_))
            | (Type::String, ValueRef::String(_))
            | (Type::Array, ValueRef::Array(_))
            | (Type::Object, ValueRef::Object(_))
            | (Type::Integer, ValueRef::Number(Number::Int(_))) => true,
            (Type::Integer, ValueRef::Number(Number::Float(x))) => {
                x.is_finite() && x.fract() == 0.0
            }
            _ => false,
        }
    }
}

/// Type bits for fast checks on tape nodes.
pub(crate) mod kinds {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOL: u8 = 2;
    pub(crate) const INT: u8 = 4;
    pub(crate) const NUM: u8 = 8;
    pub(crate) const STR: u8 = 16;
    pub(crate) const ARR: u8 = 32;
    pub(crate) const OBJ: u8 = 64;
}

impl Type {
    #[inline]
    fn bits(self) -> u8 {
        match self {
            Type::Null => kinds::NULL,
            Type::Boolean => kinds::BOOL,
            Type::Integer => kinds::INT,
            Type::Number => kinds::NUM,
            Type::String => kinds::STR,
            Type::Array => kinds::ARR,
            Type::Object => kinds::OBJ,
        }
    }
}

/// Type bits of a tape node, matched against [`Schema::mask`].
#[inline]
pub(crate) fn kind(node: &Node) -> u8 {
    use kinds::*;
    match *node {
        Node::Null => NULL,
        Node::Bool(_) => BOOL,
        Node::IntSrc(_) | Node::IntHeap(_) => INT | NUM,
        Node::Float(x) if x.get().is_finite() && x.get().fract() == 0.0 => INT | NUM,
        // Its lexeme ends in a nonzero fraction digit.
        Node::Float(_) | Node::FloatSrc(_) => NUM,
        Node::StrSrc(_)
        | Node::StrPlain(_)
        | Node::StrBare(_)
        | Node::StrQuoted(_)
        | Node::StrHeap(_) => STR,
        Node::Array { .. } => ARR,
        Node::Object { .. } => OBJ,
    }
}

/// The type name of a value as output validation messages print it (`got <type>`).
pub(crate) fn type_name(v: Value<'_>) -> &'static str {
    match v.get() {
        ValueRef::Null => "null",
        ValueRef::Bool(_) => "boolean",
        ValueRef::Number(_) => "number",
        ValueRef::String(_) => "string",
        ValueRef::Array(_) => "array",
        ValueRef::Object(_) => "object",
    }
}

/// Bytes of a string value read to quote it: 50 scalars take at most 200 bytes, so the cut
/// never copies a long value whole.
const MAX_QUOTED_BYTES: usize = 204;

/// A non-string value as quoted in messages: 47 scalars + `...` when longer than 50.
fn cut(s: &str) -> String {
    if s.chars().count() > 50 {
        let mut c: String = s.chars().take(47).collect();
        c.push_str("...");
        c
    } else {
        s.to_owned()
    }
}

/// Text from the data (a key) as quoted in messages: lossy UTF-8, cut as [`cut`] cuts.
pub(crate) fn cut_bytes(b: &[u8]) -> String {
    cut(&String::from_utf8_lossy(
        &b[..b.len().min(MAX_QUOTED_BYTES)],
    ))
}

/// A value allowed by `enum`.
#[derive(Clone, Debug, PartialEq)]
pub enum EnumValue {
    /// `null`
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer, by its lexeme `-?(0|[1-9][0-9]*)`.
    Int(String),
    /// A non-integer number.
    Float(f64),
    /// A string.
    String(String),
}

impl From<&str> for EnumValue {
    fn from(s: &str) -> EnumValue {
        EnumValue::String(s.to_owned())
    }
}

impl From<i64> for EnumValue {
    fn from(x: i64) -> EnumValue {
        EnumValue::Int(x.to_string())
    }
}

impl From<bool> for EnumValue {
    fn from(b: bool) -> EnumValue {
        EnumValue::Bool(b)
    }
}

impl EnumValue {
    pub(crate) fn matches(&self, v: Value<'_>) -> bool {
        match (self, v.get()) {
            (EnumValue::Null, ValueRef::Null) => true,
            (EnumValue::Bool(a), ValueRef::Bool(b)) => *a == b,
            (EnumValue::String(a), ValueRef::String(b)) => a.as_bytes() == b.as_bytes(),
            (EnumValue::Int(a), ValueRef::Number(Number::Int(b))) => a.as_bytes() == b,
            (EnumValue::Int(a), ValueRef::Number(n)) => a.parse::<f64>().ok() == Some(n.as_f64()),
            (EnumValue::Float(a), ValueRef::Number(n)) => *a == n.as_f64(),
            _ => false,
        }
    }

    /// How an enum value is printed in messages: strings in single quotes, others as JSON.
    pub(crate) fn display(&self) -> String {
        match self {
            EnumValue::Null => "null".into(),
            EnumValue::Bool(b) => b.to_string(),
            EnumValue::Int(s) => s.clone(),
            EnumValue::Float(x) => {
                let mut b = ryu_js::Buffer::new();
                crate::num::format_f64(&mut b, *x).to_owned()
            }
            EnumValue::String(s) => format!("'{s}'"),
        }
    }

    pub(crate) fn push(&self, b: &mut DocBuilder<'_>) {
        match self {
            EnumValue::Null => b.null(),
            EnumValue::Bool(x) => b.bool(*x),
            EnumValue::Int(s) => b.int_lexeme(s.as_bytes()),
            EnumValue::Float(x) => b.float(*x),
            EnumValue::String(s) => b.string(s.as_bytes()),
        }
    }
}

/// A schema node of the JSON Schema subset. Build one with the constructors and chain the
/// modifiers:
///
/// ```
/// use toolwire::present::Schema;
/// let invoice = Schema::object()
///     .property("id", Schema::string())
///     .property("amount_cents", Schema::integer())
///     .property("status", Schema::string().enum_values(["paid", "pending"]))
///     .required(["id", "amount_cents"]);
/// assert_eq!(invoice.root_keys().collect::<Vec<_>>(), ["id", "amount_cents", "status"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    pub(crate) types: Vec<Type>,
    pub(crate) properties: Option<Vec<(String, Schema)>>,
    pub(crate) required: Vec<String>,
    pub(crate) items: Option<Box<Schema>>,
    pub(crate) enum_values: Option<Vec<EnumValue>>,
    pub(crate) additional: bool,
}

impl Schema {
    /// A schema accepting any value (`{}`).
    pub fn any() -> Schema {
        Schema::default()
    }

    /// `{"type": t}`.
    pub fn of(t: Type) -> Schema {
        Schema {
            types: vec![t],
            ..Schema::default()
        }
    }

    /// `{"type": [t1, t2, …]}`.
    pub fn types(ts: impl IntoIterator<Item = Type>) -> Schema {
        Schema {
            types: ts.into_iter().collect(),
            ..Schema::default()
        }
    }

    /// `{"type": "object"}` (no `properties` yet: keeps the object whole).
    pub fn object() -> Schema {
        Schema::of(Type::Object)
    }

    /// `{"type": "string"}`.
    pub fn string() -> Schema {
        Schema::of(Type::String)
    }

    /// `{"type": "integer"}`.
    pub fn integer() -> Schema {
        Schema::of(Type::Integer)
    }

    /// `{"type": "number"}`.
    pub fn number() -> Schema {
        Schema::of(Type::Number)
    }

    /// `{"type": "boolean"}`.
    pub fn boolean() -> Schema {
        Schema::of(Type::Boolean)
    }

    /// `{"type": "array", "items": items}`.
    pub fn array(items: Schema) -> Schema {
        Schema::of(Type::Array).items(items)
    }

    /// Adds a property (declaration order is the output key order). Replaces an earlier
    /// property of the same name in place.
    pub fn property(mut self, name: impl Into<String>, schema: Schema) -> Schema {
        let name = name.into();
        let props = self.properties.get_or_insert_with(Vec::new);
        match props.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = schema,
            None => props.push((name, schema)),
        }
        self
    }

    /// Declares `properties` even when there are none (`{}`: every field is stripped).
    pub fn with_properties(mut self) -> Schema {
        self.properties.get_or_insert_with(Vec::new);
        self
    }

    /// Sets `required`.
    pub fn required<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Schema {
        self.required = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets `items`.
    pub fn items(mut self, items: Schema) -> Schema {
        self.items = Some(Box::new(items));
        self
    }

    /// Sets `enum`.
    pub fn enum_values<I: IntoIterator<Item = E>, E: Into<EnumValue>>(
        mut self,
        values: I,
    ) -> Schema {
        self.enum_values = Some(values.into_iter().map(Into::into).collect());
        self
    }

    /// Sets `additionalProperties` (`true` keeps undeclared fields, after the declared ones).
    pub fn additional_properties(mut self, keep: bool) -> Schema {
        self.additional = keep;
        self
    }

    /// The declared root keys, in declaration order (none without `properties`).
    pub fn root_keys(&self) -> impl Iterator<Item = &str> {
        self.properties.iter().flatten().map(|(k, _)| k.as_str())
    }

    /// The schema of property `name`, if declared.
    pub fn property_schema(&self, name: &str) -> Option<&Schema> {
        self.properties
            .as_ref()?
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, s)| s)
    }

    /// Checks `v` against this node's own keywords (type, enum), not its children. A
    /// `redacted` value is never quoted (`got a redacted value`); any other quoted value is
    /// cut as WIRE.md §8 cuts `You sent:` values (47 scalars + `...` past 50).
    pub(crate) fn check_here(&self, v: Value<'_>, redacted: bool) -> Result<(), String> {
        if !self.types.is_empty() && !self.types.iter().any(|t| t.accepts(v)) {
            return Err(format!(
                "expected {}, got {}",
                self.expected_types(),
                type_name(v)
            ));
        }
        if let Some(values) = &self.enum_values {
            if !values.iter().any(|e| e.matches(v)) {
                let list: Vec<String> = values.iter().map(EnumValue::display).collect();
                let got = match v.get() {
                    _ if redacted => "a redacted value".to_owned(),
                    ValueRef::String(s) => crate::wire::you_sent_string(&String::from_utf8_lossy(
                        &s.as_bytes()[..s.as_bytes().len().min(MAX_QUOTED_BYTES)],
                    )),
                    _ if v.is_primitive() => cut(&crate::json::to_string_compact(v)),
                    _ => type_name(v).to_owned(),
                };
                return Err(format!("expected one of {}, got {got}", list.join(", ")));
            }
        }
        Ok(())
    }

    /// The accepted type bits (all bits without a type).
    #[inline]
    pub(crate) fn mask(&self) -> u8 {
        if self.types.is_empty() {
            return u8::MAX;
        }
        self.types.iter().fold(0, |m, t| m | t.bits())
    }

    /// `string`, `string | null`, or `any value` without a type.
    pub(crate) fn expected_types(&self) -> String {
        if self.types.is_empty() {
            return "any value".into();
        }
        self.types
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    }
}
