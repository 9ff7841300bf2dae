import { LegalPage, type LegalSection } from '../components/LegalPage';
import { SUPPORT_EMAIL } from '../config';

export const title = 'Terms of Service · MileNotes';
export const description = 'The terms for using MileNotes, the runner app and the web page where friends and family record voice notes.';

const SECTIONS: LegalSection[] = [
  {
    title: 'Acceptance of these terms',
    body: (
      <p>
        These terms are an agreement between you and MileNotes. By using the MileNotes app or recording a message through our website you accept them. If you do
        not agree, please do not use MileNotes.
      </p>
    ),
  },
  {
    title: 'What MileNotes does',
    body: (
      <p>
        MileNotes lets a marathon runner collect voice notes from friends and family. Each note is pinned to a mile marker of the runner's race, and the
        runner's app plays it automatically when the runner reaches that mile on race day.
      </p>
    ),
  },
  {
    title: 'Who can use MileNotes',
    body: (
      <p>
        MileNotes is not intended for children under 13, and you may not use it if you are under 13. If you are under the age of majority where you live, you
        may use MileNotes only with the permission of a parent or guardian.
      </p>
    ),
  },
  {
    title: 'Runner accounts and Apple Sign-in',
    body: (
      <p>
        Runners sign in to the app with Apple Sign-in. You are responsible for keeping your Apple ID and your device secure and for everything done through your
        account. Tell us right away at {SUPPORT_EMAIL} if you think someone else is using it.
      </p>
    ),
  },
  {
    title: 'Recording links and voice messages',
    body: (
      <>
        <p>
          Friends and family record voice messages through our web interface, reached from a personal link that the runner shares. No account is needed to
          record. Please share your link only with people you want to hear from, because anyone who has it can record a message for you.
        </p>
        <p>If you record a message, make sure it is your own voice or that you have the right to share what you record.</p>
      </>
    ),
  },
  {
    title: 'Your content',
    body: (
      <p>
        You keep ownership of the messages you record. You give MileNotes a limited licence to store, convert and deliver each message to the runner it was
        recorded for, only as needed to run the service. We do not use your recordings for advertising.
      </p>
    ),
  },
  {
    title: 'Who can hear a message',
    body: (
      <p>
        A voice message is accessible only to the runner it was recorded for, unless that runner chooses to share it explicitly. We do not publish messages or
        show them to other users.
      </p>
    ),
  },
  {
    title: 'Acceptable use',
    body: (
      <p>
        Do not use MileNotes to record or send anything unlawful, threatening, harassing or hateful, to impersonate someone, or to interfere with the service or
        other people's use of it. We may remove content and suspend links or accounts that break these rules.
      </p>
    ),
  },
  {
    title: 'Race day and our responsibility',
    body: (
      <>
        <p>
          Playback depends on your phone, its battery, its location signal and the network, so we cannot promise that every note plays at exactly the right
          moment. Follow your race's rules on headphones and stay aware of your surroundings.
        </p>
        <p>
          MileNotes is provided as it is. To the extent the law allows, we are not liable for indirect or consequential loss arising from your use of the
          service.
        </p>
      </>
    ),
  },
  {
    title: 'Changes and contact',
    body: (
      <p>
        We may update these terms as MileNotes grows; the date above shows the latest version, and continuing to use MileNotes means you accept it. You can stop
        using MileNotes at any time. Questions about these terms: <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
      </p>
    ),
  },
];

export function TermsPage() {
  return (
    <LegalPage
      title="Terms of Service"
      intro={<p>Please read these terms before you use MileNotes, whether you are a runner using the app or a friend recording a voice note.</p>}
      sections={SECTIONS}
    />
  );
}
