//! A real editor as the client: Neovim's built-in LSP client, headless, opens a module of a
//! project, receives the generated diagnostics and hovers one (`tests/fixtures/nvim/lacuna.lua`).

use super::{home, project};
use serde_json::Value;
use std::process::Command;

#[test]
fn neovim_shows_the_generated_diagnostics_and_their_explanation() {
    if Command::new("nvim").arg("--version").output().is_err() {
        // `scripts/bootstrap` installs Neovim; only a machine without it gets here.
        eprintln!("nvim is not installed: skipped");
        assert!(std::env::var_os("CI").is_none(), "CI must have nvim");
        return;
    }
    let (dir, root, module) = project();
    let out = dir.path().join("nvim.jsonl");
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/nvim/lacuna.lua");
    let status = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("HOME", home(&dir))
        .env("XDG_CONFIG_HOME", dir.path().join("xdg-config"))
        .env("XDG_DATA_HOME", dir.path().join("xdg-data"))
        .env("XDG_STATE_HOME", dir.path().join("xdg-state"))
        .env("XDG_CACHE_HOME", dir.path().join("xdg-cache"))
        .env("LACUNA_BIN", env!("CARGO_BIN_EXE_lacuna"))
        .env("LACUNA_ROOT", &root)
        .env("LACUNA_FILE", &module)
        .env("LACUNA_OUT", &out)
        .status()
        .unwrap();
    assert!(status.success());
    let seen: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let diagnostic = seen
        .iter()
        .find(|m| m["kind"] == "diagnostic" && m["code"] == "LCN101")
        .unwrap_or_else(|| panic!("no LCN101 in Neovim: {seen:#?}"));
    assert_eq!(diagnostic["line"], 5, "{diagnostic}");
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .contains("depends on the return value of `os.path.exists`"),
        "{diagnostic}"
    );
    let hover = seen
        .iter()
        .find(|m| m["kind"] == "hover")
        .unwrap_or_else(|| panic!("no hover: {seen:#?}"));
    assert!(
        hover["value"]
            .as_str()
            .unwrap()
            .contains("Mock `os.path.exists`"),
        "{hover}"
    );
}
