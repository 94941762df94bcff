//! placeholder while in progress
