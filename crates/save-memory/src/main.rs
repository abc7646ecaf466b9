//! The `save-memory` binary: the library's `main_from` with this process's arguments (the
//! plugin ships the same code in the one `memory-stalker` binary, under this name).

fn main() -> std::process::ExitCode {
    save_memory::main_from(std::env::args_os())
}
