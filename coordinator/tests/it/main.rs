//! Integration tests of the coordinator: one binary, one module per subject.

mod browser;
mod cluster;
mod common;
mod copied;
mod dashboard;
mod disk;
mod floods;
mod help;
mod identity;
mod limits;
mod loadtest;
mod metrics;
mod pipes;
mod service;
mod solve;
mod tablebase;
mod timed;
mod tls;
mod training;
mod versions;
mod web;
mod workload;
