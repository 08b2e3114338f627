//! A member of a row's JSON text found without parsing the row: how a page's key is read
//! from the rows PostgreSQL writes (one column a row, the key not repeated beside it).

/// The JSON text of the member named `name` (as a JSON string literal) of `object`, a JSON
/// object as PostgreSQL writes one: the text `to_json` gives that value, without a second
/// column for it (whose `to_json` of every row cost PostgreSQL 7% of a page). `None` when
/// `object` is not such an object.
pub(super) fn member<'a>(object: &'a str, name: &str) -> Option<&'a str> {
    let b = object.as_bytes();
    let ws = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    // The end of the string that starts at `i` (after its closing quote).
    let string_end = |mut i: usize| loop {
        i += 1;
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 1,
            _ => {}
        }
    };
    let value_end = |i: usize| match *b.get(i)? {
        b'"' => string_end(i),
        b'{' | b'[' => {
            let (mut depth, mut j) = (0usize, i);
            loop {
                match *b.get(j)? {
                    b'"' => j = string_end(j)?,
                    b'{' | b'[' => (depth, j) = (depth + 1, j + 1),
                    b'}' | b']' => {
                        (depth, j) = (depth - 1, j + 1);
                        if depth == 0 {
                            return Some(j);
                        }
                    }
                    _ => j += 1,
                }
            }
        }
        _ => {
            let n = b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace())
                .unwrap_or(b.len() - i);
            (n > 0).then_some(i + n)
        }
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = ws(i);
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(i)?;
        let key = &object[i..key_end];
        i = ws(key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = ws(i + 1);
        let end = value_end(i)?;
        // An escaped name is compared by what it says.
        if key == name
            || (key.contains('\\')
                && serde_json::from_str::<String>(key).ok()
                    == serde_json::from_str::<String>(name).ok())
        {
            return Some(&object[i..end]);
        }
        i = ws(end);
        if b.get(i) != Some(&b',') {
            return None;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::member;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Member names, some that need escaping, some that nested values share.
    const NAMES: [&str; 7] = ["id", "i\"d", "a\\b", "é", "\u{1}x", "", "name"];

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".{0,6}".prop_map(Value::from),
            prop::sample::select(&NAMES[..]).prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                object(inner),
            ]
        })
    }

    fn object(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
        prop::collection::vec((prop::sample::select(&NAMES[..]), inner), 0..5)
            .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
    }

    proptest! {
        /// The member's text is exactly the value's JSON (compact, as `row_to_json` writes a
        /// row) or reads as the value (spaced and indented, as jsonb writes one); an absent
        /// member is `None`, whatever nested objects hold.
        #[test]
        fn a_member_is_found_by_its_name_and_nowhere_else(
            row in object(value()),
            name in prop::sample::select(&NAMES[..]),
        ) {
            let json_name = Value::from(name).to_string();
            let want = row.get(name);
            let compact = row.to_string();
            let text = want.map(Value::to_string);
            prop_assert_eq!(member(&compact, &json_name), text.as_deref());
            let pretty = serde_json::to_string_pretty(&row).unwrap();
            let got = member(&pretty, &json_name).map(|t| serde_json::from_str::<Value>(t).unwrap());
            prop_assert_eq!(got.as_ref(), want);
        }
    }

    #[test]
    fn what_is_not_an_object_has_no_member() {
        for text in [
            "",
            "[]",
            "1",
            "{",
            "{\"id\"",
            "{\"id\":",
            "{\"id\" 1}",
            "{\"a\":1 \"id\":2}",
            "{\"a\":\"x}",
        ] {
            assert_eq!(member(text, "\"id\""), None, "{text}");
        }
        assert_eq!(member(" { \"id\" : -1.5e3 } ", "\"id\""), Some("-1.5e3"));
    }
}
