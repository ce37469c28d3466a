//! Lenient reading of a model's JSON reply: models wrap JSON in prose or code fences, especially when the
//! provider cannot constrain the reply to a schema.

use serde_json::Value;

/// The first JSON object (or array) in `text` that parses: the whole text, else each balanced
/// `{…}`/`[…]` from left to right (strings and escapes respected, so code fences and prose around it do
/// not matter).
pub(crate) fn extract(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(value) = serde_json::from_str::<Value>(trimmed)
        && (value.is_object() || value.is_array())
    {
        return Some(value);
    }
    let bytes = trimmed.as_bytes();
    for (start, &byte) in bytes.iter().enumerate() {
        if (byte == b'{' || byte == b'[')
            && let Some(end) = balanced_end(bytes, start)
            && let Ok(value) = serde_json::from_str::<Value>(&trimmed[start..=end])
        {
            return Some(value);
        }
    }
    None
}

/// The index of the bracket closing the one at `start`, if the text closes it.
fn balanced_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (index, &byte) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// A string field, trimmed; `None` when missing, not a string, or empty.
pub(crate) fn string_field<'a>(object: &'a Value, names: &[&str]) -> Option<&'a str> {
    names.iter().filter_map(|name| object.get(*name)?.as_str()).map(str::trim).find(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    #[test]
    fn finds_json_in_fences_and_prose() {
        assert_eq!(extract(r#"{"kind":"answer"}"#), Some(json!({"kind":"answer"})));
        assert_eq!(
            extract("Sure!\n```json\n{\"kind\": \"command\", \"text\": \"ls {}\"}\n```\nDone."),
            Some(json!({"kind":"command","text":"ls {}"}))
        );
        assert_eq!(extract(r#"plan: [{"id":"a"}]"#), Some(json!([{"id":"a"}])));
        assert_eq!(extract(r#"{"a": "}\"{"} and {"b":1}"#), Some(json!({"a":"}\"{"})));
        assert_eq!(extract(r#"{broken {"b":1}"#), Some(json!({"b":1})));
    }

    #[test]
    fn nothing_usable_is_none() {
        for text in ["", "no json here", "{\"unterminated\": ", "}{", "42", "\"just a string\""] {
            assert_eq!(extract(text), None, "{text:?}");
        }
    }

    #[test]
    fn string_fields_skip_empty_and_other_types() {
        let value = json!({"text": "  ", "answer": 4, "reply": " hi "});
        assert_eq!(string_field(&value, &["text", "answer", "reply"]), Some("hi"));
        assert_eq!(string_field(&value, &["missing"]), None);
    }

    proptest! {
        #[test]
        fn an_object_survives_any_surrounding_prose(
            prefix in "[^{}\\[\\]]{0,40}",
            suffix in "\\PC{0,40}",
            key in "[a-z]{1,8}",
            value in "\\PC{0,20}",
        ) {
            let object = json!({ key: value });
            let text = format!("{prefix}{object}{suffix}");
            prop_assert_eq!(extract(&text), Some(object));
        }

        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = extract(&text);
        }
    }
}
