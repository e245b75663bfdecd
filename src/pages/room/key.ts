/**
 * The key this page calls the API with. Until the shared page key (src/pages/client/pageKey.ts: a key
 * made for the signed-in session, else the guest key) is here: the guest key the board keeps.
 */
export async function pageKey(): Promise<string | null> {
  try {
    return localStorage.getItem('openDice.apiKey');
  } catch {
    return null;
  }
}
