// Package model holds the domain of the football data service: competitions,
// teams, players, fixtures and their results, points adjustments, API clients
// and league codes, with the rules that bind them (status transitions, table
// rules, validation). It depends on the standard library only, so every other
// package can share it without pulling in NATS or HTTP.
package model
