import { LegalPage, type LegalSection } from '../components/LegalPage';
import { SUPPORT_EMAIL } from '../config';

export const title = 'Privacy Policy · MileNotes';
export const description = 'How MileNotes collects, uses and protects information about runners and the people who record voice notes for them.';

const mail = <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>;

const SECTIONS: LegalSection[] = [
  {
    title: 'Who we are',
    body: (
      <p>
        MileNotes makes an iOS app for marathon runners and a website where their friends and family record voice notes. This policy explains what information
        we collect through both, why, and the choices you have.
      </p>
    ),
  },
  {
    title: 'Information from runners',
    body: (
      <p>
        Runners sign in with Apple Sign-in. Apple gives us an identifier for your account and, if you choose to share them, your name and e-mail address (which
        may be a private relay address). We also keep the races you choose and the recording links you create.
      </p>
    ),
  },
  {
    title: 'Information from friends and family',
    body: (
      <p>
        When you record through the web interface we receive your voice message, the name you enter for the runner to see, and the mile marker you choose. We do
        not ask you to create an account. Our server also records basic technical data such as the time of the upload.
      </p>
    ),
  },
  {
    title: 'How we use information',
    body: (
      <p>
        We use this information to run MileNotes: to deliver each message to its runner, to play it at the right mile, to keep the service secure and to answer
        you when you contact us. We do not sell personal information and we do not use recordings for advertising.
      </p>
    ),
  },
  {
    title: 'Who can hear your voice messages',
    body: (
      <p>
        Voice messages are accessible only to the runner they were recorded for, unless that runner shares them explicitly. Our staff access a message only when
        needed to keep the service working, to help you when you ask, or when the law requires it.
      </p>
    ),
  },
  {
    title: 'Location on race day',
    body: (
      <p>
        The app uses your phone's location during a race to know when you reach each mile marker, so the right notes play. Location is used for that purpose
        only, and only while you have a race running in the app.
      </p>
    ),
  },
  {
    title: 'Service providers',
    body: (
      <p>
        We store data with hosting and storage providers who process it on our behalf and under contract, only to provide MileNotes. We may disclose information
        if the law requires it or to protect the safety of our users.
      </p>
    ),
  },
  {
    title: 'Storage, security and retention',
    body: (
      <p>
        Information is sent over encrypted connections and kept on secured servers. We keep a runner's messages while the account exists so they can be replayed
        after the race, and delete them when the account is deleted.
      </p>
    ),
  },
  {
    title: 'Children',
    body: (
      <p>
        MileNotes is not for children under 13, and we do not knowingly collect information from them. If you believe a child under 13 has given us information,
        write to us and we will delete it.
      </p>
    ),
  },
  {
    title: 'Your choices and account deletion',
    body: (
      <>
        <p>
          You can request deletion of your account in the app's Settings. Deleting your account removes your profile, your recording links and the messages
          recorded for you.
        </p>
        <p>If you recorded a message and want it removed, or want a copy of the information we hold about you, write to us at {mail}.</p>
      </>
    ),
  },
  {
    title: 'Changes and contact',
    body: (
      <p>
        We will update this policy when our practices change; the date above shows the latest version. For any question about privacy, contact our support team
        at {mail}.
      </p>
    ),
  },
];

export function PrivacyPage() {
  return (
    <LegalPage
      title="Privacy Policy"
      intro={<p>Your voice, your words and your race are personal. This policy tells you plainly what we do with them.</p>}
      sections={SECTIONS}
    />
  );
}
