/** The one error type routes throw for an expected failure: status, machine code and a sentence for a person. */
export class ApiProblem extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

export const linkNotFound = () =>
  new ApiProblem(404, 'link_not_found', "This link doesn't work any more. Ask the runner for a new one.");
