/** Why a course (GPX) was not taken: one code per mistake, and a sentence that says what to fix. */
export type CourseProblem =
  | 'unreadable'
  | 'too_large'
  | 'too_many_tags'
  | 'doctype'
  | 'not_xml'
  | 'not_gpx'
  | 'no_track'
  | 'too_few_points'
  | 'bad_coordinates'
  | 'wrong_length';

/** A course refused as given; its message is written for the person who supplied the file (printed as is). */
export class CourseRefused extends Error {
  constructor(
    readonly problem: CourseProblem,
    message: string,
  ) {
    super(message);
    this.name = 'CourseRefused';
  }
}
