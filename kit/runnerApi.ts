/** The runner's app as the tests and the bench see it: JSON calls to the runner API with an optional bearer token. */
export async function runnerApi(baseUrl: string, method: string, url: string, accessToken?: string, body?: object) {
  const res = await fetch(`${baseUrl}${url}`, {
    method,
    headers: { ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
