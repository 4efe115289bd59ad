//! A guard in front of the JSON-RPC reader. tower-lsp's reader stops at the first message it
//! cannot decode (tokio-util ends a framed stream after a decoder error), which would leave the
//! server deaf after one malformed message. This task reads the framing itself, passes every
//! well-formed message through unchanged, and turns a malformed one into a `lacuna/malformed`
//! request that the server answers with a JSON-RPC parse error (-32700) — and keeps serving.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

pub const MALFORMED: &str = "lacuna/malformed";

/// Whether a body is a JSON-RPC message tower-lsp can decode.
fn well_formed(body: &[u8]) -> Result<(), String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let object = value.as_object().ok_or("a message must be a JSON object")?;
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return Err("`jsonrpc` must be \"2.0\"".into());
    }
    match object.get("method") {
        Some(Value::String(_)) => Ok(()),
        Some(_) => Err("`method` must be a string".into()),
        None if object.contains_key("id")
            && (object.contains_key("result") || object.contains_key("error")) =>
        {
            Ok(())
        }
        None => Err("neither a request, a notification nor a response".into()),
    }
}

/// Forwards `input` to the returned stream, message by message.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(input: R) -> DuplexStream {
    let (mut forward, output) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        let mut malformed = 0u64;
        loop {
            let mut length = None;
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                let header = line.trim_end();
                if header.is_empty() {
                    if length.is_some() {
                        break;
                    }
                    continue;
                }
                if let Some((name, value)) = header.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse::<usize>().ok();
                }
            }
            let Some(length) = length else { continue };
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).await.is_err() {
                return;
            }
            if let Err(why) = well_formed(&body) {
                malformed += 1;
                body = json!({
                    "jsonrpc": "2.0",
                    "id": format!("lacuna-malformed-{malformed}"),
                    "method": MALFORMED,
                    "params": {"error": why},
                })
                .to_string()
                .into_bytes();
            }
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            if forward.write_all(header.as_bytes()).await.is_err()
                || forward.write_all(&body).await.is_err()
            {
                return;
            }
        }
    });
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_counts_as_well_formed() {
        assert!(well_formed(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#).is_ok());
        assert!(well_formed(br#"{"jsonrpc":"2.0","id":1,"result":null}"#).is_ok());
        assert!(well_formed(br#"{"jsonrpc":"2.0","id":99,"method":"#).is_err());
        assert!(well_formed(br#"[1, 2]"#).is_err());
        assert!(well_formed(br#"{"jsonrpc":"2.0","id":1}"#).is_err());
    }
}
