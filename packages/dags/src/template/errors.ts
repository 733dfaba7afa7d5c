/** A template could not be parsed or rendered; the message names the variable, filter or position. */
export class TemplateError extends Error {
  constructor(
    message: string,
    readonly template?: string,
  ) {
    super(message);
    this.name = "TemplateError";
  }
}
