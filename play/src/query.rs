//! Query strings and form bodies: `name=value` pairs joined by `&`, percent-encoded, `+` a
//! space.

/// The decoded value of `name` among `&`-separated `name=value` pairs (a query string or a
/// form body), or `None` if it is not there or does not decode.
pub fn field(pairs: &str, name: &str) -> Option<String> {
	pairs
		.split('&')
		.filter_map(|pair| pair.split_once('='))
		.find(|(key, _)| decode(key).as_deref() == Some(name))
		.and_then(|(_, value)| decode(value))
}

/// `text` with `+` as a space and `%XX` as its byte; `None` if that is not UTF-8 or a `%` is
/// not followed by two hex digits.
pub fn decode(text: &str) -> Option<String> {
	let mut bytes = Vec::with_capacity(text.len());
	let mut rest = text.as_bytes();
	while let Some((&first, tail)) = rest.split_first() {
		match first {
			b'+' => bytes.push(b' '),
			b'%' => {
				let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
				if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
					return None;
				}
				bytes.push(u8::from_str_radix(hex, 16).ok()?);
				rest = &tail[2..];
				continue;
			}
			byte => bytes.push(byte),
		}
		rest = tail;
	}
	String::from_utf8(bytes).ok()
}

/// `text` percent-encoded as a query value: letters, digits, `.`, `-` and `_` as they are, a
/// space as `+`, every other byte as `%XX`.
pub fn encode(text: &str) -> String {
	text.bytes()
		.map(|b| match b {
			b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' => {
				char::from(b).to_string()
			}
			b' ' => "+".to_string(),
			_ => format!("%{b:02X}"),
		})
		.collect()
}

/// The value of field `name` in a form body (`application/x-www-form-urlencoded`), decoded;
/// `None` if it is not there or is not UTF-8.
pub fn form_value(body: &[u8], name: &str) -> Option<String> {
	field(std::str::from_utf8(body).ok()?, name)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn fields_are_found_by_name_and_decoded() {
		let query = "x=1&position=T...T%2F.....%2F.....%2F.....%2FT...T+s+20&y";
		assert_eq!(
			field(query, "position").as_deref(),
			Some("T...T/...../...../...../T...T s 20")
		);
		assert_eq!(field(query, "x").as_deref(), Some("1"));
		assert_eq!(field(query, "y"), None);
		assert_eq!(field(query, "z"), None);
		// Half an escape, a sign that is not hex, and bytes that are not UTF-8 decode to nothing.
		assert_eq!(decode("%4"), None);
		assert_eq!(decode("%+1"), None);
		assert_eq!(decode("%ff"), None);
		assert_eq!(decode("a%20b").as_deref(), Some("a b"));
		let text = "T...T/...../..S../...../T...T t 19";
		assert_eq!(decode(&encode(text)).as_deref(), Some(text));
		assert_eq!(encode("a b/c"), "a+b%2Fc");
	}

	#[test]
	fn form_fields_are_decoded() {
		assert_eq!(
			form_value(b"token=a%2Bb+c%26", "token").as_deref(),
			Some("a+b c&")
		);
		assert_eq!(form_value(b"x=1&token=", "token").as_deref(), Some(""));
		assert_eq!(form_value(b"x=1", "token"), None);
		assert_eq!(form_value(b"token=%zz", "token"), None);
		assert_eq!(form_value(b"token=%4", "token"), None);
		assert_eq!(form_value(b"token=%ff", "token"), None);
	}
}
