/*
 * What the concurrency limiter decided at the end of one window and why: the limit the host applies to
 * the slots from now on, a human-readable reason and the state to carry into the next window. The limit
 * driver applies it; replay compares it with the logged one.
 */
package dev.pumaplus.controller;

/**
 * One limiter decision; every decision has a reason, the unchanged ones too.
 *
 * @param limit  requests that may run on slots at once from now on, 1 to the slots dialled in
 * @param reason why, in one line
 * @param next   the state for the next window
 */
public record LimitDecision(int limit, String reason, LimitState next) {
}
