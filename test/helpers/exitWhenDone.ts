/**
 * Loaded before every test file (ava's `require`): once ava has a file's results, with no uncaught
 * exception or unhandled rejection, its worker ends at once. Otherwise a timer or socket a test left
 * behind (a wait's deadline after the race it lost, a closing handshake's 30 s timer) keeps the
 * worker, and with it one of the suite's two slots, idle for up to that timer's length after the
 * last test: 7 to 10 s a file was seen, tens of seconds in a group. ava documents this use of
 * registerCompletionHandler.
 */
import { registerCompletionHandler } from 'ava';

registerCompletionHandler(() => process.exit());
