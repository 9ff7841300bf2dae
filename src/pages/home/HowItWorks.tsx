import type { ReactNode } from 'react';

/** The client's three steps, in order, word for word as the card titles. */
const STEPS: { title: string; text: string; icon: ReactNode }[] = [
  {
    title: 'Choose your race from events across the US, Canada, Europe and Australia.',
    text: 'Pick your marathon in the MileNotes app, sign in with Apple and send your personal link to the people cheering for you.',
    icon: <path d="M6 21V4m0 0h11l-2 4 2 4H6" />,
  },
  {
    title: 'Friends and family record messages at specific mile markers.',
    text: 'They open your link on any phone or computer, choose a mile and record a voice note right in the browser. No app, no account.',
    icon: (
      <>
        <rect x="9" y="3" width="6" height="11" rx="3" />
        <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
      </>
    ),
  },
  {
    title: 'The notes play automatically on race day.',
    text: 'As you reach each mile, your phone plays the notes waiting there, so the voices you love arrive exactly when you need them.',
    icon: <path d="M4 15v-3a8 8 0 0 1 16 0v3M4 15h3v5H4zM17 15h3v5h-3z" />,
  },
];

export function HowItWorks() {
  return (
    <section className="section" id="how-it-works" aria-labelledby="how-title">
      <h2 id="how-title" className="section__title">
        How It Works
      </h2>
      <ol className="steps">
        {STEPS.map((step, i) => (
          <li className="step" key={step.title}>
            <div className="step__top">
              <svg className="step__icon" viewBox="0 0 24 24" aria-hidden="true">
                {step.icon}
              </svg>
              <span className="step__number">Step {i + 1}</span>
            </div>
            <h3 className="step__title">{step.title}</h3>
            <p className="step__text">{step.text}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}
