//! The JSON-RPC transport in front of tower-lsp. tower-lsp's reader stops at the first message
//! it cannot decode (tokio-util ends a framed stream after a decoder error), which would leave
//! the server deaf after one malformed message. This layer reads the framing itself:
//!
//! - a well-formed message is passed through unchanged;
//! - a body that is not JSON is answered with a parse error (-32700), one that is JSON but not a
//!   request, notification or response tower-lsp can decode (an `id` of `1.5` or `{}`, a batch)
//!   with an invalid-request error (-32600), both with `id: null` (the id is unknown);
//! - bytes that are not a header (a stray `\xff`, garbage between messages) are skipped up to
//!   the next `Content-Length` header, with a log message;
//! - a message longer than the maximum message size is answered with an error and its body
//!   skipped as it arrives, never held in memory.
//!
//! Everything the server writes goes through one writer task, so that the errors this layer
//! answers never interleave with tower-lsp's own messages.

use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
    DuplexStream,
};
use tokio::sync::{Notify, mpsc};
use tower_lsp_server::jsonrpc::{Request, Response};

/// The default maximum size of one message's body, in bytes (`lacuna lsp --max-message-size`).
pub const DEFAULT_MAX_MESSAGE: u64 = 64 << 20;

/// A header line longer than this is not a header: it is skipped as garbage.
const MAX_HEADER_LINE: usize = 8 << 10;

/// JSON-RPC's error codes this layer answers with.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// What one header line says.
#[derive(Debug, PartialEq)]
enum Header {
    /// `Content-Length: n`, after `skipped` bytes of garbage before it on the same line.
    Length {
        skipped: usize,
        length: Result<u64, NotALength>,
    },
    /// Another header (`Content-Type: …`).
    Other,
    /// Not a header at all.
    Garbage,
}

/// A `Content-Length` header whose value is not a number of bytes (as written).
#[derive(Debug, PartialEq, thiserror::Error)]
#[error("`Content-Length: {0}` is not a number of bytes")]
struct NotALength(String);

fn parse_header(line: &[u8]) -> Header {
    const NAME: &[u8] = b"content-length";
    let found = line
        .windows(NAME.len())
        .position(|w| w.eq_ignore_ascii_case(NAME));
    if let Some(start) = found {
        let rest = &line[start + NAME.len()..];
        let rest = rest.trim_ascii_start();
        if let Some(value) = rest.strip_prefix(b":") {
            let value = value.trim_ascii();
            let length = if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                // Digits beyond u64 are a length no message can have: the largest says so.
                Ok(std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(u64::MAX))
            } else {
                Err(NotALength(String::from_utf8_lossy(value).into_owned()))
            };
            return Header::Length {
                skipped: start,
                length,
            };
        }
    }
    match line.iter().position(|&b| b == b':') {
        Some(colon)
            if colon > 0
                && line[..colon]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-') =>
        {
            Header::Other
        }
        _ => Header::Garbage,
    }
}

/// The message in `body`, or why it cannot be passed to tower-lsp, as the error to answer it
/// with.
fn check(body: &[u8]) -> Result<Value, Value> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => return Err(error(PARSE_ERROR, format!("Parse error: {e}"), Value::Null)),
    };
    let invalid = |why: &str, id: Value| {
        Err(error(
            INVALID_REQUEST,
            format!("Invalid Request: {why}"),
            id,
        ))
    };
    let Some(object) = value.as_object() else {
        return invalid("a message must be a JSON object", Value::Null);
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    let id_ok = match &id {
        Value::Null | Value::String(_) => true,
        Value::Number(n) => n.is_i64(),
        _ => false,
    };
    if !id_ok {
        return invalid("`id` must be an integer or a string", Value::Null);
    }
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid("`jsonrpc` must be \"2.0\"", id);
    }
    match object.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => return invalid("`method` must be a string", id),
        None if object.contains_key("id")
            && (object.contains_key("result") || object.contains_key("error")) => {}
        None => return invalid("neither a request, a notification nor a response", id),
    }
    // Whatever else tower-lsp's decoder would refuse.
    if serde_json::from_value::<Request>(value.clone()).is_err()
        && serde_json::from_value::<Response>(value.clone()).is_err()
    {
        return invalid("not a message the server can decode", id);
    }
    Ok(value)
}

fn error(code: i64, message: String, id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn reply(message: Value) -> Outgoing {
    Some(message.to_string().into_bytes())
}

fn log(message: String) -> Value {
    eprintln!("lacuna lsp: {message}");
    json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 2, "message": format!("Lacuna: {message}")}})
}

/// Reads one line (up to and including `\n`) into `line`, keeping at most `limit` bytes of it;
/// returns how many bytes were consumed (0 at the end of the input).
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<usize> {
    line.clear();
    let mut consumed = 0;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(consumed);
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = limit.saturating_sub(line.len()).min(take);
        line.extend_from_slice(&buf[..room]);
        reader.consume(take);
        consumed += take;
        if done {
            return Ok(consumed);
        }
    }
}

/// Reads messages from `input` and passes the well-formed ones on to `forward`; what must be
/// answered or logged instead goes to `replies`. Returns at the end of the input.
async fn read<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    input: R,
    mut forward: W,
    replies: mpsc::UnboundedSender<Outgoing>,
    max_message: u64,
    exit: Arc<Notify>,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        // The header block: `Content-Length` (required) and other headers, then an empty line.
        let mut length: Option<Result<u64, NotALength>> = None;
        let mut garbage = 0usize;
        loop {
            let consumed = match read_line(&mut reader, &mut line, MAX_HEADER_LINE).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let text = line.trim_ascii_end();
            if text.is_empty() {
                if length.is_some() {
                    break;
                }
                continue;
            }
            let header = if consumed > MAX_HEADER_LINE {
                Header::Garbage
            } else {
                parse_header(text)
            };
            match header {
                Header::Length { skipped, length: l } => {
                    garbage += skipped;
                    length = Some(l);
                }
                Header::Other if length.is_some() || garbage == 0 => {}
                Header::Other | Header::Garbage => {
                    garbage += consumed;
                    length = None;
                }
            }
            if garbage > 0 && length.is_some() {
                let _ = replies.send(reply(log(format!(
                    "skipped {garbage} byte{} that {} not part of a message",
                    if garbage == 1 { "" } else { "s" },
                    if garbage == 1 { "was" } else { "were" },
                ))));
                garbage = 0;
            }
        }
        let length = match length {
            Some(Ok(length)) => length,
            Some(Err(why)) => {
                // The body's end is unknown: what follows is skipped up to the next header.
                let _ = replies.send(reply(error(
                    PARSE_ERROR,
                    format!("Parse error: {why}"),
                    Value::Null,
                )));
                continue;
            }
            None => continue,
        };
        if length > max_message {
            let _ = replies.send(reply(error(
                INVALID_REQUEST,
                format!(
                    "Invalid Request: a message of {length} bytes is larger than the maximum \
                     message size ({max_message} bytes, `lacuna lsp --max-message-size`); it was \
                     skipped"
                ),
                Value::Null,
            )));
            let mut body = (&mut reader).take(length);
            match tokio::io::copy(&mut body, &mut tokio::io::sink()).await {
                Ok(n) if n == length => continue,
                _ => return,
            }
        }
        let mut body = Vec::with_capacity(length.min(1 << 20) as usize);
        match (&mut reader).take(length).read_to_end(&mut body).await {
            Ok(n) if n as u64 == length => {}
            _ => return,
        }
        let message = match check(&body) {
            Ok(message) => message,
            Err(answer) => {
                let _ = replies.send(reply(answer));
                continue;
            }
        };
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        if forward.write_all(header.as_bytes()).await.is_err()
            || forward.write_all(&body).await.is_err()
        {
            return;
        }
        if message["method"] == "exit" {
            exit.notify_one();
        }
    }
}

/// Reads the framed messages tower-lsp writes to `from`; `None` at its end.
async fn next_frame<R: AsyncBufRead + Unpin>(from: &mut R) -> Option<Vec<u8>> {
    let mut length = None;
    let mut line = Vec::new();
    loop {
        if read_line(from, &mut line, MAX_HEADER_LINE).await.ok()? == 0 {
            return None;
        }
        let text = line.trim_ascii_end();
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Header::Length {
            length: Ok(n),
            skipped: 0,
        } = parse_header(text)
        {
            length = Some(n);
        }
    }
    let mut body = vec![0; usize::try_from(length?).ok()?];
    from.read_exact(&mut body).await.ok()?;
    Some(body)
}

/// What the writer writes: a message, or the end of the server's output.
type Outgoing = Option<Vec<u8>>;

/// Passes on the messages tower-lsp writes to `from`, then the end.
async fn frames(from: DuplexStream, to: mpsc::UnboundedSender<Outgoing>) {
    let mut from = BufReader::new(from);
    while let Some(body) = next_frame(&mut from).await {
        if to.send(Some(body)).is_err() {
            return;
        }
    }
    let _ = to.send(None);
}

/// Writes to `output`, message by message, until the server's side ends.
async fn write<W: AsyncWrite + Unpin>(
    mut messages: mpsc::UnboundedReceiver<Outgoing>,
    mut output: W,
) {
    while let Some(Some(body)) = messages.recv().await {
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        if output.write_all(header.as_bytes()).await.is_err()
            || output.write_all(&body).await.is_err()
            || output.flush().await.is_err()
        {
            return;
        }
    }
    let _ = output.flush().await;
}

/// The two sides of the transport.
pub struct Transport {
    /// What tower-lsp's `Server` reads and writes.
    pub input: DuplexStream,
    pub output: DuplexStream,
    /// The writer task: it ends once the server's output is closed and written.
    pub writer: tokio::task::JoinHandle<()>,
    /// Notified when the client's `exit` notification has been passed on.
    pub exit: Arc<Notify>,
}

/// The transport in front of `input` and `output`.
pub fn guard<R, W>(input: R, output: W, max_message: u64) -> Transport
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (server_in, to_server) = tokio::io::duplex(1 << 20);
    let (server_out, from_server) = tokio::io::duplex(1 << 20);
    let (messages, messages_rx) = mpsc::unbounded_channel();
    let exit = Arc::new(Notify::new());
    tokio::spawn(read(
        input,
        to_server,
        messages.clone(),
        max_message,
        exit.clone(),
    ));
    tokio::spawn(frames(from_server, messages));
    let writer = tokio::spawn(write(messages_rx, output));
    Transport {
        input: server_in,
        output: server_out,
        writer,
        exit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn what_counts_as_well_formed() {
        assert!(check(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#).is_ok());
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"result":null}"#).is_ok());
        assert!(check(br#"{"jsonrpc":"2.0","id":"a","method":"x"}"#).is_ok());
        let code = |body: &[u8]| check(body).unwrap_err()["error"]["code"].clone();
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":99,"method":"#), PARSE_ERROR);
        assert_eq!(code(br#"[1, 2]"#), INVALID_REQUEST);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1}"#), INVALID_REQUEST);
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            check(br#"{"jsonrpc":"1.0","id":7,"method":"x"}"#).unwrap_err()["id"],
            7
        );
    }

    #[test]
    fn headers() {
        assert_eq!(
            parse_header(b"Content-Length: 12"),
            Header::Length {
                skipped: 0,
                length: Ok(12)
            }
        );
        assert_eq!(
            parse_header(b"\xffcontent-length:3"),
            Header::Length {
                skipped: 1,
                length: Ok(3)
            }
        );
        assert_eq!(
            parse_header(b"Content-Length: 18446744073709551615"),
            Header::Length {
                skipped: 0,
                length: Ok(u64::MAX)
            }
        );
        assert_eq!(
            parse_header(b"Content-Length: 99999999999999999999999"),
            Header::Length {
                skipped: 0,
                length: Ok(u64::MAX)
            }
        );
        assert!(matches!(
            parse_header(b"Content-Length: -1"),
            Header::Length { length: Err(_), .. }
        ));
        assert_eq!(
            parse_header(b"Content-Type: application/json"),
            Header::Other
        );
        assert_eq!(parse_header(b"\xff\xfe"), Header::Garbage);
    }

    /// Runs the reader over `input`; returns the messages passed on and the replies.
    fn run(input: Vec<u8>, max_message: u64) -> (Vec<u8>, Vec<Vec<u8>>) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel();
            let mut forwarded = vec![];
            read(
                std::io::Cursor::new(input),
                &mut forwarded,
                tx,
                max_message,
                Arc::new(Notify::new()),
            )
            .await;
            let mut replies = vec![];
            while let Ok(Some(reply)) = rx.try_recv() {
                replies.push(reply);
            }
            (forwarded, replies)
        })
    }

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    const HOVER: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover"}"#;

    /// Cases per run: `default`, or `LACUNA_FUZZ_CASES` for a longer run.
    fn fuzz_cases(default: u32) -> u32 {
        std::env::var("LACUNA_FUZZ_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(fuzz_cases(500)))]

        /// Random bytes, random headers and random bodies: the reader never panics and ends at
        /// the end of the input, and a well-formed message after the garbage still gets through.
        #[test]
        fn random_input_is_skipped_or_answered(
            chunks in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
                    "(Content-Length|content-length|Content-Type): ?[0-9a-z\\-]{0,22}\r?\n"
                        .prop_map(String::into_bytes),
                    proptest::prelude::Just(b"\r\n".to_vec()),
                    "\\{\"jsonrpc\":\"2.0\",\"id\":[0-9.a-z\"{}\\[\\]]{0,5},\"method\":\"x\"\\}"
                        .prop_map(|b| frame(b.as_bytes())),
                ],
                0..12,
            ),
        ) {
            let mut input: Vec<u8> = chunks.concat();
            // Whatever came before, a message on its own lines is read.
            input.extend_from_slice(b"\r\n\r\n");
            input.extend_from_slice(&frame(HOVER));
            let (forwarded, _) = run(input, 1 << 10);
            let _ = forwarded;
        }
    }

    #[test]
    fn a_message_after_garbage_is_passed_on() {
        let mut input = b"\xff".to_vec();
        input.extend_from_slice(&frame(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#));
        input.extend_from_slice(b"garbage\r\n");
        input.extend_from_slice(&frame(HOVER));
        let (forwarded, replies) = run(input, 1 << 20);
        assert_eq!(forwarded, frame(HOVER));
        assert_eq!(replies.len(), 3, "a log, an error, a log");
    }

    #[test]
    fn an_oversized_body_is_skipped_not_held() {
        let mut input = frame(&vec![b'x'; 5000]);
        input.extend_from_slice(&frame(HOVER));
        let (forwarded, replies) = run(input, 100);
        assert_eq!(forwarded, frame(HOVER));
        assert_eq!(replies.len(), 1);
    }
}
