// What the validating proxy (openapi_proxy.mjs) and tests/openapi/examples_test.mjs
// share: JSON pointers into the document, and the member set of an answer.

const escapeToken = (token) => encodeURIComponent(String(token).replaceAll('~', '~0').replaceAll('/', '~1'));
export const pointerOf = (tokens) => '#/' + tokens.map(escapeToken).join('/');

// Every member's path in `value`, sorted: "data.mintId", an array's items' as "data[].name".
export function membersOf(value) {
  const paths = new Set();
  const visit = (node, prefix) => {
    if (Array.isArray(node)) {
      node.forEach((item) => visit(item, `${prefix}[]`));
    } else if (node && typeof node === 'object') {
      for (const [key, member] of Object.entries(node)) {
        const path = prefix ? `${prefix}.${key}` : key;
        paths.add(path);
        visit(member, path);
      }
    }
  };
  visit(value, '');
  return [...paths].sort();
}
