//! CLI errors and their exit codes.

use std::fmt;

/// An error the CLI reports on stderr.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit code 2.
    Input(String),
    /// Anything else: exit code 1.
    Other(String),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Other(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(m) | CliError::Other(m) => f.write_str(m),
        }
    }
}

impl From<peakorder::Error> for CliError {
    fn from(e: peakorder::Error) -> Self {
        CliError::Input(e.to_string())
    }
}
