// Sign-in for the demonstration: the viewer pastes a bearer token the KAS's dev issuer made
// (`kas token --sub NAME --data-dir DIR`, docs/web.md "The viewer page"). This is the one module
// a deployment replaces with its own sign-in (OpenID Connect, a session cookie exchanged for a
// token, …): the page needs only what signIn() resolves to.
//
// The token is kept in this module's memory only: never in a URL, storage or a cookie, never
// logged; signing out (or reloading the page) forgets it.

/**
 * Shows the sign-in form in `container` and resolves, once the viewer signed in, with
 * `{ token: () => string, signOut: () => void }`; `token()` is what the player and the
 * delivery calls send as `Authorization: Bearer`.
 */
export function signIn(container) {
  const form = document.createElement("form");
  form.id = "sign-in-form";
  form.className = "sign-in";
  const heading = document.createElement("h1");
  heading.textContent = "Sign in";
  const help = document.createElement("p");
  help.textContent = "Paste a viewer token from this service's dev issuer (kas token). It stays in this page's memory only.";
  const label = document.createElement("label");
  label.textContent = "Viewer token";
  const input = document.createElement("input");
  input.id = "sign-in-token";
  input.type = "password";
  input.autocomplete = "off";
  input.required = true;
  label.append(input);
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = "Sign in";
  const problem = document.createElement("p");
  problem.id = "sign-in-problem";
  problem.setAttribute("role", "alert");
  form.append(heading, help, label, button, problem);
  container.replaceChildren(form);
  container.hidden = false;
  return new Promise((resolve) => {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      let token = input.value.trim();
      // A JWT: three base64url parts. Anything else is a paste mistake worth saying so.
      if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
        problem.textContent = "That is not a token: it should be three parts separated by dots. Paste the whole output of kas token.";
        return;
      }
      input.value = "";
      container.hidden = true;
      container.replaceChildren();
      resolve({ token: () => token, signOut: () => { token = ""; } });
    });
  });
}
